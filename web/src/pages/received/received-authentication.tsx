import type { ReactNode } from 'react';
import { Badge, type Tone } from '../../ui/badge';
import { Card, DescriptionList } from '../../ui/page';
import type { ReceivedDetail } from './received-types';

/** pass is good, fail bad, a temporary or permanent error a warning; none/neutral/softfail stay neutral. */
const toneOf = (result: string): Tone =>
  result === 'pass' ? 'good' : result === 'fail' ? 'bad' : /error/.test(result) ? 'warn' : 'neutral';

const Result = ({ value }: { value: string | null }): ReactNode =>
  value ? <Badge tone={toneOf(value)}>{value}</Badge> : <span className="muted">Not checked</span>;

/**
 * How the message authenticated when it arrived (SPF, DKIM per signature, DMARC, ARC) and the
 * Authentication-Results header the appliance wrote: whether the sender is who it claims to be.
 */
export function ReceivedAuthentication({ authentication }: { authentication: ReceivedDetail['authentication'] }) {
  return (
    <Card title="Authentication" id="authentication">
      {authentication ? (
        <>
          <DescriptionList
            items={[
              ['SPF', <Result key="spf" value={authentication.spf} />],
              [
                'DKIM',
                // mailauth reports a message without any signature as one "unknown: none" row.
                authentication.dkim.filter((row) => row !== 'unknown: none').length ? (
                  <ul className="tag-list">
                    {authentication.dkim.map((row, index) => {
                      // "domain: result", as the appliance records each signature.
                      const result = row.split(': ').at(-1) ?? row;
                      return (
                        <li key={index}>
                          <Badge tone={toneOf(result)}>{row}</Badge>
                        </li>
                      );
                    })}
                  </ul>
                ) : (
                  <span className="muted">No signature</span>
                ),
              ],
              ['DMARC', <Result key="dmarc" value={authentication.dmarc} />],
              ['ARC', <Result key="arc" value={authentication.arc} />],
            ]}
          />
          {authentication.header ? (
            <details className="transcript">
              <summary>Authentication-Results header</summary>
              <pre tabIndex={0}>{authentication.header}</pre>
            </details>
          ) : null}
        </>
      ) : (
        <p className="muted">
          Not checked: the checks did not finish in time when the message arrived, or it was dropped.
        </p>
      )}
    </Card>
  );
}
