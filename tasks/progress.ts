/** A progress bar for operator tasks, drawn on stderr. */

/** Draws `[#####-----]  50%  500/1000` and redraws it in place; call `done()` at the end. */
export function progressBar(label: string, total: number): { update(n: number): void; done(): void } {
  const enc = new TextEncoder();
  const tty = Deno.stderr.isTerminal();
  let lastPct = -1;
  const draw = (n: number) => {
    const pct = total === 0 ? 100 : Math.floor((n / total) * 100);
    if (pct === lastPct) return;
    if (!tty && pct % 10 !== 0 && n !== total) return;
    lastPct = pct;
    const width = 30;
    const filled = Math.round((pct / 100) * width);
    const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
    const line = `${label} [${bar}] ${String(pct).padStart(3)}%  ${n}/${total}`;
    Deno.stderr.writeSync(enc.encode(tty ? `\r${line}` : `${line}\n`));
  };
  return {
    update: draw,
    done() {
      if (tty) Deno.stderr.writeSync(enc.encode("\n"));
    },
  };
}

/**
 * Progress reported as `(done, total)` by a domain write: the bar is drawn from the first report on (when the
 * total is known), or not at all when `enabled` is false. Call `done()` at the end, also after a failure.
 */
export function reportedProgress(
  label: string,
  enabled: boolean,
): { onProgress: ((done: number, total: number) => void) | undefined; done(): void } {
  let bar: ReturnType<typeof progressBar> | undefined;
  const onProgress = (done: number, total: number) => {
    bar ??= progressBar(label, total);
    bar.update(done);
  };
  return { onProgress: enabled ? onProgress : undefined, done: () => bar?.done() };
}
