// Markdown for the act measurement (stdout and the README block).
import {
  atMost,
  failedLine,
  medianCell,
  metaLine,
  plural,
  ratio,
  ratioCells,
  ratioHeading,
  tableHead,
  tableRow,
  targetCell,
} from '../../core/format.js';
import type { ReportContext } from '../../core/measurement.js';
import type { ActRun } from './measure.js';

/** The target: act(observeResult) in at most half of Stagehand's time. */
const TARGET = 0.5;

export function renderActSummary(run: ActRun, input: ReportContext): string {
  const { ours, theirs } = input;
  const all = [ours, ...theirs];
  const cells = all.map((c) => medianCell(run.outcomes.get(c.id), (v) => v.times));
  const target = targetCell(
    `≤ ${TARGET.toFixed(2)}× ${theirs[0]!.label}`,
    atMost(ratio(cells[0]!.value, cells[1]?.value ?? Number.NaN), TARGET),
  );
  const lines = [
    ...tableHead('`act(action)` with an observe() result', [...all.map((c) => c.label), ...theirs.map(ratioHeading)], ['target']),
    tableRow(['`act(observeResult)`: a deterministic click, median (ms)', ...cells.map((c) => c.text), ...ratioCells(cells), target]),
    '',
  ];
  for (const col of all) {
    const o = run.outcomes.get(col.id);
    if (o && !o.ok) lines.push(failedLine(col.label, o.error), '');
  }
  const { iterations, warmups } = run.settings;
  const { selector, description, method } = run.action;
  lines.push(
    metaLine([
      input.envLine,
      `median of ${plural(iterations, 'timed call')} per library after ${warmups} untimed, libraries alternating, one browser each on one local page (\`scripts/bench/pages${run.pagePath}\`, loaded once, untimed)`,
      `timed: \`act({ selector: "${selector}", description: "${description}", method: "${method}", arguments: [] })\` until it resolves`,
      "after each call, untimed, the page's counter is read with the library's own `page.evaluate` and must have gone up by exactly one",
      'all constructed with the fake model of `extract-llm` (Stagehand 4.4.0 through its generate callback); a request to it fails the library',
      `ratio = ${ours.label} / each Stagehand`,
      ...(theirs.some((c) => c.id === 'stagehand4')
        ? ['Stagehand 4.4.0 runs in a node 22 child process, which times the call itself (the pipe is not counted)']
        : []),
      '`npm run bench -- --only act`',
    ]),
  );
  return `${lines.join('\n')}\n`;
}
