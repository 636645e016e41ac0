// Two-way tables of checks (behaviour × client): the checks of a suite that
// name a TableCell are arranged into one table per title, rows and columns in
// the order the checks come. Every renderer draws the same Grid, so
// report.md and report.html show the same table; report.json carries the
// cells on the checks themselves.
import type { CheckResult, Status } from './model.ts';

export interface GridCell {
  checkId: string;
  status: Status;
  text: string;
  /** The check's one-line message (the reason when it failed or was skipped). */
  message: string;
}

export interface Grid {
  title: string;
  rows: string[];
  columns: string[];
  /** row → column → cell; a missing cell means no check sits there. */
  cells: Record<string, Record<string, GridCell>>;
}

export function gridsOf(checks: CheckResult[]): Grid[] {
  const grids = new Map<string, Grid>();
  for (const c of checks) {
    if (!c.cell) continue;
    const { table, row, column } = c.cell;
    let g = grids.get(table);
    if (!g) {
      g = { title: table, rows: [], columns: [], cells: {} };
      grids.set(table, g);
    }
    if (!g.rows.includes(row)) g.rows.push(row);
    if (!g.columns.includes(column)) g.columns.push(column);
    (g.cells[row] ??= {})[column] = {
      checkId: c.id,
      status: c.status,
      text: c.cell.text ?? c.message,
      message: c.message,
    };
  }
  return [...grids.values()];
}
