import { ConfigError } from '../../src/config.js';
import { ServiceError } from '../../src/domain/errors.js';
import { httpErrorOf } from '../../src/contract/errorMessages.js';
import { UsageError } from './cliArgs.js';
import { StoreNotFound } from './storeNotFound.js';

const write = (stream: NodeJS.WriteStream, text: string) =>
  new Promise<void>((resolve) => stream.write(text.endsWith('\n') ? text : `${text}\n`, () => resolve()));

/** The message an operator sees for a refused command: the API's message, then the reason. */
function describe(error: unknown): string {
  if (error instanceof ServiceError) {
    const [, message] = httpErrorOf(error.code);
    return error.detail ? `${message}: ${error.detail}` : message;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs a CLI's main and exits: 0 with its output on stdout; 2 with the usage on stderr for a bad
 * command line, with the message for a bad configuration or one that points at no store; 1 with the
 * message when the command is refused or fails.
 * Exiting explicitly: a store client left with an open handle must not keep the CLI alive.
 */
export async function runCli(usage: string, main: () => Promise<string | undefined>): Promise<never> {
  let code = 0;
  try {
    const output = await main();
    await write(process.stdout, output ?? usage);
  } catch (error) {
    if (error instanceof UsageError) {
      code = 2;
      await write(process.stderr, `${error.message}\n${usage}`);
    } else if (error instanceof ConfigError || error instanceof StoreNotFound) {
      code = 2;
      await write(process.stderr, error.message);
    } else {
      code = 1;
      await write(process.stderr, `error: ${describe(error)}`);
    }
  }
  process.exit(code);
}
