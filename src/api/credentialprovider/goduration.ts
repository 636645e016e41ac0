// Go's time.ParseDuration with its exact error text, and time.Duration.String,
// in nanoseconds (bigint: Go durations are int64 ns and users do write "1.5h").
// The kubelet parses defaultCacheDuration / cacheDuration this way and prints
// durations this way in its validation messages.

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX_INT64 = (1n << 63n) - 1n;

export type GoDuration = { ok: true; ns: bigint } | { ok: false; error: string };

export function parseGoDurationNs(orig: string): GoDuration {
  const invalid = (): GoDuration => ({ ok: false, error: `time: invalid duration ${quote(orig)}` });
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, ns: 0n };
  if (s === '') return invalid();
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || (s[0]! >= '0' && s[0]! <= '9'))) return invalid();
    const intPart = /^[0-9]*/.exec(s)![0];
    s = s.slice(intPart.length);
    let frac = '';
    let hasFrac = false;
    if (s[0] === '.') {
      s = s.slice(1);
      frac = /^[0-9]*/.exec(s)![0];
      s = s.slice(frac.length);
      hasFrac = frac.length > 0;
    }
    if (intPart === '' && !hasFrac) return invalid();
    let i = 0;
    while (i < s.length && s[i] !== '.' && !(s[i]! >= '0' && s[i]! <= '9')) i++;
    if (i === 0) return { ok: false, error: `time: missing unit in duration ${quote(orig)}` };
    const unitName = s.slice(0, i);
    s = s.slice(i);
    const unit = UNIT_NS[unitName];
    if (unit === undefined)
      return { ok: false, error: `time: unknown unit ${quote(unitName)} in duration ${quote(orig)}` };
    let v = BigInt(intPart === '' ? '0' : intPart) * unit;
    if (hasFrac) v += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    total += v;
    if (total > MAX_INT64 + (neg ? 1n : 0n)) return invalid();
  }
  return { ok: true, ns: neg ? -total : total };
}

/** time.Duration.String: 1h2m3.5s, 1.5ms, 0s, -1m0s. */
export function formatGoDuration(ns: bigint): string {
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < 1_000_000_000n) {
    if (u === 0n) return '0s';
    if (u < 1_000n) out = `${u}ns`;
    else if (u < 1_000_000n) out = `${frac(u, 3)}µs`;
    else out = `${frac(u, 6)}ms`;
  } else {
    const seconds = frac(u, 9, true);
    u /= 1_000_000_000n;
    out = `${u % 60n}${seconds}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

// Integer part plus the fraction of v / 10^prec without trailing zeros.
function frac(v: bigint, prec: number, fractionOnly = false): string {
  const scale = 10n ** BigInt(prec);
  const f = (v % scale).toString().padStart(prec, '0').replace(/0+$/, '');
  const fraction = f === '' ? '' : `.${f}`;
  return fractionOnly ? fraction : `${v / scale}${fraction}`;
}

function quote(s: string): string {
  return JSON.stringify(s);
}
