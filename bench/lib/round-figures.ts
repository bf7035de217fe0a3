import { goalText, verdict, type Figure } from './figures.js';
import type { Generator, Measurement } from './measurements.js';
import { median } from './paired-summary.js';

/*
 * Figures taken round by round, and the median of their rounds (the goals of the issues "Every
 * core" and 31). A ratio of medians could pair one scenario's best round with the other's worst;
 * a round's ratio compares two runs of the same round, on the machine as it was then.
 */

/** One round's run of a scenario by one generator, if it ran. */
export type RoundRuns = (scenario: string) => Measurement | undefined;

export interface RoundFigure extends Pick<Figure, 'label' | 'goal' | 'format'> {
  /** The figure from one round's runs; `undefined` where a run it needs is missing, or gave no reading. */
  readonly value: (runs: RoundRuns) => number | undefined;
}

/** A figure from one generator: each round's value (rounds where it had one), and their median. */
export interface RoundValue {
  readonly byRound: readonly number[];
  readonly median: number;
}

/** `figure` from the runs of `generator`, or `undefined` where no round gave it. */
export function roundValue(measurements: readonly Measurement[], figure: Pick<RoundFigure, 'value'>, generator: Generator): RoundValue | undefined {
  const rounds = new Map<number, Map<string, Measurement>>();
  for (const m of measurements) {
    if (m.generator !== generator) continue;
    const round = rounds.get(m.round) ?? new Map<string, Measurement>();
    rounds.set(m.round, round.set(m.scenario, m));
  }
  const byRound = [...rounds]
    .sort(([a], [b]) => a - b)
    .flatMap(([, runs]) => {
      const value = figure.value((scenario) => runs.get(scenario));
      return value === undefined || !Number.isFinite(value) ? [] : [value];
    });
  return byRound.length === 0 ? undefined : { byRound, median: median(byRound) };
}

/** `numerator`'s reading ÷ `denominator`'s, in the same round; `undefined` where either is missing or the divisor is not above 0. */
export function roundRatio(numerator: string, denominator: string, reading: (run: Measurement) => number | undefined): RoundFigure['value'] {
  return (runs) => {
    const [top, bottom] = [runs(numerator), runs(denominator)];
    const [a, b] = [top === undefined ? undefined : reading(top), bottom === undefined ? undefined : reading(bottom)];
    return a === undefined || b === undefined || b <= 0 ? undefined : a / b;
  };
}

/** The report's table of `figures`: each generator's median of the rounds, its verdict, and the rounds' values. */
export function roundTable(figures: readonly RoundFigure[], measurements: readonly Measurement[], judged: boolean): string[] {
  const lines = ['| Figure | autocannon | verdict | wrk | verdict | goal | per round (autocannon; wrk) |', '|---|---:|---|---:|---|---|---|'];
  for (const figure of figures) {
    const values = (['autocannon', 'wrk'] as const).map((generator) => roundValue(measurements, figure, generator));
    const cells = values.map((value) =>
      value === undefined ? 'not measured | —' : `${figure.format(value.median)} | ${verdict(figure, value.median, judged)}`,
    );
    const rounds = values.map((value) => (value === undefined ? '—' : value.byRound.map(figure.format).join(', '))).join('; ');
    lines.push(`| ${figure.label} | ${cells.join(' | ')} | ${goalText(figure)} | ${rounds} |`);
  }
  return lines;
}
