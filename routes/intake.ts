/**
 * The inbound intake endpoints (plain routes, not in the public OpenAPI description; documented in docs/contract.md §7):
 * - `POST /api/inbound/email`: one raw RFC 5322 message (`message/rfc822` or `text/plain`) → 201 `{anfrage_id}`,
 *   a repeat 200 `{status: "duplicate", anfrage_id}` (see intake/email.ts). A mail to an inquiry's reply address
 *   (`anfrage-…@`) is the inquirer's answer: a new message in that inquiry, answered the same way.
 * - `POST /api/inbound/openimmo-feedback`: OpenImmo-Feedback XML (`application/xml` or `text/xml`) → 200
 *   `{created, duplicate, refused}` (see intake/openimmo_feedback.ts).
 * Both need the header `x-intake-secret` equal to INTAKE_SECRET (compared in constant time): missing or wrong →
 * 401 `{error: "unauthorized"}`; without INTAKE_SECRET both answer 404 `{error: "not_found"}`.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { AppError } from "../errors.ts";
import { intakeSecretMatches } from "../intake/common.ts";
import { receiveEmail } from "../intake/email.ts";
import { receiveFeedback } from "../intake/openimmo_feedback.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "./env.ts";
import { mediaTypeIs } from "./media_type.ts";
import { writeLimit } from "./rate_limit.ts";

/** Where {@linkcode intakeRoutes} is mounted. */
export const INTAKE_PREFIX = "/api/inbound";
/** Path of the inbound e-mail endpoint. */
export const EMAIL_INTAKE_PATH = `${INTAKE_PREFIX}/email`;
/** Path of the OpenImmo-Feedback endpoint. */
export const FEEDBACK_INTAKE_PATH = `${INTAKE_PREFIX}/openimmo-feedback`;

const EMAIL_TYPES = ["message/rfc822", "text/plain"];
const XML_TYPES = ["application/xml", "text/xml"];

/** Off (404) without INTAKE_SECRET; 401 `unauthorized` unless `x-intake-secret` matches; 415 for other types. */
function guard(deps: AppDeps, types: string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const secret = deps.config.intakeSecret;
    if (!secret) throw new AppError("not_found");
    if (!await intakeSecretMatches(secret, c.req.header("x-intake-secret"))) {
      return c.json({ error: "unauthorized" }, 401);
    }
    if (!mediaTypeIs(c.req.header("content-type"), ...types)) throw new AppError("unsupported_media_type");
    return await next();
  };
}

/** The raw request body. */
async function rawBody(c: Context<AppEnv>): Promise<Uint8Array> {
  return new Uint8Array(await c.req.arrayBuffer());
}

/** The intake routes, mounted at {@linkcode INTAKE_PREFIX}; their POSTs count in the write bucket. */
export function intakeRoutes(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.post("/email", writeLimit(deps), guard(deps, EMAIL_TYPES), async (c) => {
    const r = await receiveEmail(deps, await rawBody(c));
    return r.status === "created"
      ? c.json({ anfrage_id: r.inquiryId }, 201)
      : c.json({ status: "duplicate", anfrage_id: r.inquiryId }, 200);
  });
  app.post("/openimmo-feedback", writeLimit(deps), guard(deps, XML_TYPES), async (c) => {
    return c.json(await receiveFeedback(deps, await rawBody(c)), 200);
  });
  return app;
}
