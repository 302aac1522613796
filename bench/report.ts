// Benchmark helpers: timing statistics and writing one section of BENCHMARKS.md (between markers, so
// benches can run in any order without clobbering each other).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function stats(samplesMs: number[]) {
  const s = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { n: s.length, median: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

export const ms = (x: number) => `${x.toFixed(3)} ms`;

export async function timeIt(n: number, fn: (i: number) => Promise<unknown>, warmup = Math.min(50, n)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

export const machineLine = () =>
  `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. Shared and noisy: compare ratios, not absolutes.`;

export function writeSection(id: string, markdown: string) {
  const file = path.resolve("BENCHMARKS.md");
  let text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "# Benchmarks\n\nEach section is rewritten by its `npm run bench:*` script.\n";
  const start = `<!-- bench:${id} -->`;
  const end = `<!-- /bench:${id} -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const re = new RegExp(`${start}[\\s\\S]*?${end}`);
  text = re.test(text) ? text.replace(re, block) : `${text.trimEnd()}\n\n${block}\n`;
  fs.writeFileSync(file, text);
}
