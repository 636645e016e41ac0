// Text helpers of report.html: escaping, and the short form of a check's
// message that its row shows (the whole message is in the check's details).
import type { CheckResult } from './model.ts';

export const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const pretty = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/** How long a row's message may be before it is cut; a few lines of the message column. */
export const ROW_MESSAGE_CHARS = 280;

/**
 * The message without the model's reasoning when the comparison below says
 * it: judge() words it "(<model>: <because>)" and "as predicted (<because>)".
 */
export function messageBesideComparison(c: Pick<CheckResult, 'message' | 'comparison'>): string {
  if (!c.comparison) return c.message;
  const { model, because } = c.comparison;
  return c.message.replace(` (${model}: ${because})`, '').replace(`as predicted (${because})`, 'as predicted');
}

/** A message as its row shows it: cut at a word boundary. */
export function rowMessage(message: string, max = ROW_MESSAGE_CHARS): string {
  if (message.length <= max) return message;
  const cut = message.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}
