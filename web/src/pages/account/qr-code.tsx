import { renderSVG } from 'uqr';

/**
 * The otpauth URI as a QR code, drawn here (uqr) and shown as a data: image: the secret never
 * leaves the page for a QR service. The secret is shown in text too, for apps without a camera.
 */
export function QrCode({ value, label }: { value: string; label: string }) {
  const svg = renderSVG(value, { border: 2 });
  const src = `data:image/svg+xml;base64,${btoa(svg)}`;
  return <img className="qr-code" src={src} alt={label} width={200} height={200} />;
}
