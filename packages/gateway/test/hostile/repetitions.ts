/**
 * How many bursts each exactness check of the hostile suite repeats (burst, layers and
 * workers-burst): `HOSTILE_REPETITIONS`, 4 unless set. Four keeps the suite within the CI run's
 * 30 minutes on a 2-core machine, where one round of a burst under the CPU hog takes 7 to 40 s;
 * `HOSTILE_REPETITIONS=20 npm run test:hostile` is the long run the issues' figures were first
 * taken with (`npm run bench` still runs 20 bursts across workers, quiet and under the hog).
 */
export const REPETITIONS = repetitionsFrom(process.env.HOSTILE_REPETITIONS);

function repetitionsFrom(value: string | undefined): number {
  if (value === undefined || value === '') return 4;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 100)
    throw new Error(`HOSTILE_REPETITIONS must be a whole number from 1 to 100, got ${JSON.stringify(value)}`);
  return count;
}
