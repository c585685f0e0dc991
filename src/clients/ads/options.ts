/**
 * The options AdClient adds to every client's, for the check of unknown
 * option keys that ServiceClient makes (AdClient does not name them to it
 * itself). Type-only imports: no module cycle with service-client.ts.
 */
import type { ServiceClientOptions } from '../http/service-client.ts';
import { optionNames } from '../../validate.ts';
import type { AdClientOptions } from './client.ts';

export const AD_CLIENT_OWN_OPTIONS = optionNames<Omit<AdClientOptions, keyof ServiceClientOptions>>()(['indexMaxAgeMs', 'imageMaxAgeMs', 'random']);
