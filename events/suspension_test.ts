/**
 * The rules of suspension as data: which failed attempt suspends, the draft's `deliveryStatus` of a state, which
 * event the person may send again, and the order of the checks before an attempt (access first: a suspended
 * subscription whose access is gone is revoked, not kept).
 */
import assert from "node:assert/strict";
import type { ClaimedAttempt } from "../db/deliveries.ts";
import type { DeliveryStateRow } from "../db/subscription_state.ts";
import { holdOf } from "./delivery.ts";
import { deliveryStatus, resendable, suspends } from "./suspension.ts";

const T = Date.UTC(2026, 9, 1, 12, 0, 0);
const at = (ms: number) => new Date(T + ms);
const HOUR = 3_600_000;

Deno.test("suspends: only a retryable failure on the last attempt of the schedule", () => {
  assert.equal(suspends("failed", true, 4, 4), true);
  assert.equal(suspends("failed", true, 3, 4), false, "not before the fourth");
  assert.equal(suspends("failed", false, 4, 4), false, "a 413 fails its event only");
  assert.equal(suspends("delivered", false, 4, 4), false);
  assert.equal(suspends("gone", false, 4, 4), false);
  assert.equal(suspends("retry", true, 3, 4), false);
});

Deno.test("deliveryStatus: the draft's fields from the stored state", async (t) => {
  const row = (r: Partial<DeliveryStateRow>): DeliveryStateRow => ({
    suspendedAt: null,
    lastDeliveryAt: null,
    lastFailureAt: null,
    lastError: null,
    failingSince: null,
    ...r,
  });
  await t.step("nothing yet", () => {
    assert.deepEqual(deliveryStatus(row({})), { active: true, lastDeliveryAt: null, lastError: null });
  });
  await t.step("healthy: no failedSince key", () => {
    const s = deliveryStatus(row({ lastDeliveryAt: at(5), lastFailureAt: at(1), lastError: "timeout" }));
    assert.deepEqual(s, { active: true, lastDeliveryAt: at(5).toISOString(), lastError: null });
  });
  await t.step("failing while active: the category and since when", () => {
    const s = deliveryStatus(
      row({ lastDeliveryAt: at(5), lastFailureAt: at(9), lastError: "http_5xx", failingSince: at(7) }),
    );
    assert.deepEqual(s, {
      active: true,
      lastDeliveryAt: at(5).toISOString(),
      lastError: "http_5xx",
      failedSince: at(7).toISOString(),
    });
  });
  await t.step("suspended", () => {
    const s = deliveryStatus(
      row({ suspendedAt: at(10), lastFailureAt: at(10), lastError: "tls_error", failingSince: at(2) }),
    );
    assert.deepEqual(s, {
      active: false,
      lastDeliveryAt: null,
      lastError: "tls_error",
      failedSince: at(2).toISOString(),
    });
  });
});

Deno.test("resendable: a failed delivery of an event of the last 24 hours", () => {
  const now = at(30 * HOUR);
  assert.equal(resendable("failed", at(7 * HOUR), now), true);
  assert.equal(resendable("failed", at(6 * HOUR), now), true, "exactly 24 hours");
  assert.equal(resendable("failed", at(6 * HOUR - 1), now), false);
  for (const state of ["delivered", "held", "pending", "dropped"]) {
    assert.equal(resendable(state, at(29 * HOUR), now), false, state);
  }
});

Deno.test("holdOf: access is checked before the suspension", () => {
  const c = {
    ended: false,
    expiresAt: at(HOUR),
    consentScopes: ["lesen"],
    server: "anbieter",
    role: "provider",
    memberOffice: "o1",
    officeId: "o1",
    optedOut: false,
    suspended: true,
  } as unknown as ClaimedAttempt;
  assert.deepEqual(holdOf(c, at(0)), { keep: true });
  assert.deepEqual(holdOf({ ...c, suspended: false }, at(0)), undefined);
  assert.deepEqual(holdOf({ ...c, consentScopes: null }, at(0)), { revoke: "access_closed" });
  assert.deepEqual(holdOf({ ...c, memberOffice: "o2" }, at(0)), { revoke: "access_closed" });
  assert.deepEqual(holdOf({ ...c, optedOut: true }, at(0)), { revoke: "ended_by_user" });
  assert.deepEqual(holdOf({ ...c, ended: true }, at(0)), { drop: "subscription_ended" });
  assert.deepEqual(holdOf(c, at(HOUR)), { drop: "subscription_expired" });
});
