/** libmime (nodemailer's author) ships no types; the tests use its decoder only. */
declare module 'libmime' {
  const libmime: { decodeWords(text: string): string };
  export default libmime;
}
