import t from 'tap';
import { formatDuration } from '../../cli/format-duration.js';

t.test('the largest unit and the next one when it is not zero', async (t) => {
  const cases: Array<[number, string]> = [
    [0, '0s'],
    [-5, '0s'],
    [45.9, '45s'],
    [60, '1m'],
    [190, '3m 10s'],
    [7200, '2h'],
    [7260, '2h 1m'],
    [2 * 86_400 + 4 * 3600 + 59, '2d 4h'],
    [2 * 86_400 + 300, '2d'],
  ];
  for (const [seconds, text] of cases) t.equal(formatDuration(seconds), text, String(seconds));
});
