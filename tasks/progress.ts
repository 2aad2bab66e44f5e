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
