// The one place where `env` is read: the environment an Sdk's options name, among those its entry
// point carries (the package's main entry all three; tendril/extension only EXTENSION).

import { InvalidOptionError } from '../errors.js';
import type { SdkEnv, SdkOptions } from '../types.js';
import type { Environment } from './types.js';

const ENVS: readonly SdkEnv[] = ['LOCAL', 'HOSTED', 'EXTENSION'];

export interface EnvironmentChoice {
  /** The environments this entry carries, the first being the default. */
  readonly available: readonly Environment[];
  /** Why an env this entry does not carry cannot be used here, and what to do instead. */
  refuse(env: SdkEnv): string;
}

/** The environment `options.env` names, its options checked; a typed error for any other value. */
export function chooseEnvironment(options: SdkOptions, choice: EnvironmentChoice): Environment {
  const env = options.env ?? choice.available[0]!.name;
  if ((env as string) === 'BROWSERBASE') {
    throw new InvalidOptionError(
      'env "BROWSERBASE" is Browserbase\'s own service, which Tendril does not talk to. For a remote browser use env "HOSTED" with ' +
        '`hostedApiUrl`, `apiKey` and, if you like, `projectId` (a label there) (a Tendril hosted server: docs/hosted.md); for a browser on this machine, env "LOCAL".',
    );
  }
  if (!ENVS.includes(env)) throw new InvalidOptionError(`env must be "LOCAL", "HOSTED" or "EXTENSION", not ${JSON.stringify(env)}.`);
  const environment = choice.available.find((each) => each.name === env);
  if (!environment) throw new InvalidOptionError(choice.refuse(env));
  environment.check(options);
  return environment;
}
