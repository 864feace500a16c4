import type { AiCredits } from './ai-types';

const number = new Intl.NumberFormat();

/** What an AI answer cost, in words: the credits left this month (one per accepted request). */
export function AiCreditsNote({ credits, free }: { credits: AiCredits; free?: boolean }) {
  return (
    <p className="muted ai-credits">
      {free ? 'This answer cost no credit. ' : 'This answer used one AI credit. '}
      {number.format(credits.remaining)} of {number.format(credits.limit)} credits left this month.
    </p>
  );
}
