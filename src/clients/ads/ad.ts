/** What an ad is: its fields as the ad service gives them, the check of one it sent, and its JSON as powprime prints it. */
import { isoTime } from '../clock.ts';
import { checkObject } from '../http/shapes.ts';

export interface Ad {
  alt: string;
  author: string;
  bias: number;
  contact: string;
  filename: string;
  license: string;
  timestamp: number;
  bg?: string;
  fg?: string;
  to?: string;
}

const COLOUR = /^#[0-9a-fA-F]{3,8}$/;

/** An ad from the service with its required fields checked (a ProtocolError naming `route` when one is missing or of the wrong type); colours not of the form #… are dropped. */
export function validateAd(route: string, v: unknown): Ad {
  const o = checkObject(
    route,
    v,
    { alt: 'string', author: 'string', bias: 'number', contact: 'string', filename: 'string', license: 'string', timestamp: 'number' },
    { bg: 'string', fg: 'string', to: 'string' },
  );
  const ad: Ad = {
    alt: o.alt as string,
    author: o.author as string,
    bias: o.bias as number,
    contact: o.contact as string,
    filename: o.filename as string,
    license: o.license as string,
    timestamp: o.timestamp as number,
  };
  if (typeof o.bg === 'string' && COLOUR.test(o.bg)) ad.bg = o.bg;
  if (typeof o.fg === 'string' && COLOUR.test(o.fg)) ad.fg = o.fg;
  if (typeof o.to === 'string') ad.to = o.to;
  return ad;
}

/** An ad as powprime's JSON gives it: the service's UNIX-seconds `timestamp` as an ISO 8601 instant. */
export function adJson<T extends Ad>(ad: T): Omit<T, 'timestamp'> & { timestamp: string } {
  return { ...ad, timestamp: isoTime(ad.timestamp * 1000) };
}
