/** The message every benchmark request sends: one recipient, a subject, ~400 bytes of HTML and a text part. */
export const benchMessage = (i: number) => ({
  from: 'Bench <bench@bench.test>',
  to: [`r${i}@example.net`],
  subject: `Benchmark message ${i}`,
  html: `<p>Hello ${i}</p>`.repeat(20),
  text: `Hello ${i}`,
});
