/**
 * The workspace's OpenImmo upload (`/anbieter/objekte/import`): a file is always run as a dry run first and its
 * report shown; only the same file sent again with the dry run's fingerprint is imported. A thin adapter over
 * `catalogue/openimmo_import.ts`, the function of the `import_openimmo` tool. Also the multipart form reading of
 * the workspace's uploads.
 */
import type { Context, Hono } from "hono";
import { importOpenImmo, type ImportSummary } from "../catalogue/openimmo_import.ts";
import { sha256Hex } from "../crypto.ts";
import { mediaTypeIs } from "../routes/media_type.ts";
import type { AppEnv } from "../routes/env.ts";
import { langOfRequest, type PageCtx } from "./common.ts";
import { csrfOk, csrfToken } from "./csrf.ts";
import { errorPage } from "./form_checks.tsx";
import type { Lang } from "./i18n.ts";
import { CsrfField } from "./layout.tsx";
import { decimal } from "../catalogue/german.ts";
import {
  attempt,
  type FormProblem,
  memberActor,
  memberOf,
  Problem,
  w,
  wordOf,
  WORKSPACE,
  WsPage,
  WsTable,
} from "./workspace_common.tsx";

type C = Context<AppEnv>;

const PATH = `${WORKSPACE}/objekte/import`;

/** The string fields and the one file of a multipart form whose CSRF token checks out, or the 403 page. */
export async function multipartForm(
  ctx: PageCtx,
  c: C,
): Promise<{ fields: Record<string, string>; file: File | undefined } | Response> {
  const fields: Record<string, string> = {};
  let file: File | undefined;
  if (mediaTypeIs(c.req.header("content-type"), "multipart/form-data")) {
    const body = await c.req.parseBody().catch(() => ({}));
    for (const [k, v] of Object.entries(body)) {
      if (typeof v === "string") fields[k] = v.replaceAll("\0", "");
      else if (v instanceof File && k === "datei" && v.size > 0) file = v;
    }
  }
  if (!csrfOk(c, fields._csrf, ctx.deps.config.baseUrl)) return errorPage(c, "csrf", 403);
  return { fields, file };
}

/** Adds the OpenImmo routes (GET and POST `/objekte/import`) to the workspace app. */
export function importRoutes(app: Hono<AppEnv>, ctx: PageCtx): void {
  app.get("/objekte/import", (c) => importPage(ctx, c));
  app.post("/objekte/import", (c) => runImport(ctx, c));
}

function importPage(
  ctx: PageCtx,
  c: C,
  p: { problem?: FormProblem; summary?: ImportSummary; probe?: string; publish?: boolean } = {},
) {
  const l = langOfRequest(c);
  const csrf = csrfToken(c, ctx.secure);
  const dryRunDone = p.summary !== undefined && !p.summary.committed;
  return c.html(
    <WsPage ctx={ctx} c={c} title={w(l, "openimmo")} at="stock">
      <Problem l={l} problem={p.problem} />
      {p.summary && <Report l={l} s={p.summary} />}
      <form method="post" action={PATH} enctype="multipart/form-data">
        <CsrfField token={csrf} />
        {dryRunDone && <input type="hidden" name="probe" value={p.probe} />}
        {dryRunDone && <p>{w(l, "importAgain")}</p>}
        <label for="datei">{w(l, "openimmoFile")}</label>
        <input
          id="datei"
          name="datei"
          type="file"
          accept=".xml,.zip"
          required
          aria-invalid={p.problem ? "true" : undefined}
        />
        <label>
          <input type="checkbox" name="veroeffentlichen" value="ja" checked={p.publish} />{" "}
          {w(l, "publishNew")}
        </label>
        <p>{w(l, "sameFile")}</p>
        <button type="submit">{w(l, dryRunDone ? "importNow" : "dryRun")}</button>
      </form>
    </WsPage>,
    p.problem ? 400 : 200,
  );
}

function Report(p: { l: Lang; s: ImportSummary }) {
  const { l, s } = p;
  return (
    <section aria-labelledby="h-report" data-committed={String(s.committed)}>
      <h2 id="h-report">{w(l, "report")}: {w(l, s.committed ? "committed" : "notCommitted")}</h2>
      <dl class="facts">
        <dt>{w(l, "total")}</dt>
        <dd data-n="objects">{decimal(s.objects, l)}</dd>
        {(["created", "updated", "unchanged", "withdrawn"] as const).map((k) => (
          <>
            <dt>{w(l, k)}</dt>
            <dd data-n={k}>{decimal(s[k], l)}</dd>
          </>
        ))}
        <dt>{w(l, "invalid")}</dt>
        <dd data-n="invalid">{decimal(s.invalid.length, l)}</dd>
      </dl>
      {s.invalid.length > 0 && (
        <WsTable titles={[w(l, "reference"), w(l, "invalid")]}>
          {s.invalid.map((i) => (
            <tr>
              <td>{i.objektnr_extern ?? `#${i.position}`}</td>
              <td>{i.reason}</td>
            </tr>
          ))}
        </WsTable>
      )}
      {s.not_published.length > 0 && (
        <p class="warning">
          {w(l, "notPublished")}{" "}
          {s.not_published.map((n) =>
            `${n.objektnr_extern}: ${n.missing.map((f) => wordOf(l, f)).join(", ")}`
          )
            .join("; ")}
        </p>
      )}
      {s.unmapped.length > 0 && <p>{s.unmapped.map((u) => u.element).join(", ")}</p>}
    </section>
  );
}

async function runImport(ctx: PageCtx, c: C) {
  const form = await multipartForm(ctx, c);
  if (form instanceof Response) return form;
  const m = memberOf(c);
  const publish = form.fields.veroeffentlichen === "ja";
  if (!form.file) return importPage(ctx, c, { problem: { fields: ["datei"] }, publish });
  const bytes = new Uint8Array(await form.file.arrayBuffer());
  // The fingerprint of the file and the publish choice: the import runs only for the file the dry run showed.
  const marked = new Uint8Array(bytes.length + 1);
  marked.set(bytes);
  marked[bytes.length] = publish ? 1 : 0;
  const probe = await sha256Hex(marked);
  const dryRun = form.fields.probe !== probe;
  const summary = await attempt(
    ctx,
    c,
    () => importOpenImmo(ctx.deps, { actor: memberActor(m), origin: null }, bytes, { publish, dryRun }),
    () => importPage(ctx, c, { problem: { fields: ["datei"] }, publish }),
  );
  if (summary instanceof Response) return summary;
  return importPage(ctx, c, { summary, probe, publish });
}
