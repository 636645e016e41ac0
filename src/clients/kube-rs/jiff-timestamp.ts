// How kube-rs reads expirationTimestamp: `ts.parse::<jiff::Timestamp>()`
// (kube-client auth/mod.rs:346-350), jiff's RFC 3339 / RFC 9557 / ISO 8601
// grammar, which takes more than RFC 3339: a space or a lower-case t between
// date and time, a lower-case z, an offset without its colon or with seconds,
// a time without seconds, a comma before the fraction, a six-digit signed
// year, and 23:59:60 (as 23:59:59). It refuses no offset at all, more than
// nine fraction digits, anything after the timestamp, and dates or times out
// of range. Held to the real parser by the kube-rs differential
// (the last test of src/clients/field-probes.test.ts).
const GRAMMAR =
  /^(\d{4}|[+-]\d{6})-(\d{2})-(\d{2})[Tt ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2})(?::?(\d{2}))?)?)$/;

/** The instant jiff reads, in ms since the epoch; or why it refuses the text. */
export function parseJiffTimestamp(ts: string): { ok: true; ms: number } | { ok: false; defect: string } {
  const m = GRAMMAR.exec(ts);
  if (!m) return { ok: false, defect: 'not a timestamp with an offset (jiff)' };
  const [, y, mo, d, h, mi = '0', s = '0', frac = '', , sign, oh = '0', om = '0', os = '0'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (y === '-000000') return { ok: false, defect: 'year -000000 (jiff)' };
  if (month < 1 || month > 12) return { ok: false, defect: `month ${mo} (jiff)` };
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > days) return { ok: false, defect: `day ${d} of that month (jiff)` };
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return { ok: false, defect: 'a time out of range (jiff)' };
  if (Number(oh) > 25 || Number(om) > 59 || Number(os) > 59)
    return { ok: false, defect: 'an offset out of range (jiff)' };
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(Number(h), Number(mi), Math.min(Number(s), 59), Number(`0.${frac || '0'}`) * 1000);
  const offsetMs = (Number(oh) * 3600 + Number(om) * 60 + Number(os)) * 1000 * (sign === '-' ? -1 : 1);
  return { ok: true, ms: utc.getTime() - offsetMs };
}
