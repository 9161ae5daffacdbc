import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { anchoredWall, clocksWith, type Clocks } from '../clock.js';
import { rolesOf } from '../roles.js';

/** What every part of one service process is wired with: its configuration, roles, clocks and name. */
export interface Wiring {
  config: Config;
  log: Logger;
  roles: ReturnType<typeof rolesOf>;
  /** the bundler runs here: its role, and not switched off */
  bundlerRuns: boolean;
  /** this process's name in leases: a restarted process is a new holder (its lease waits out its old one) */
  instanceId: string;
  clocks: Clocks;
  /**
   * the wall clock: every timestamp of a command, lease and query is `now()`; ages and deadlines that
   * must not jump when it steps run on the monotonic one (src/clock.ts)
   */
  now: () => number;
  /** the block height's age and the guard's ceiling: wall times (they are saved), but no step moves them */
  heightClock: () => number;
  /**
   * receipts being signed (the signer is started with the command side): each is followed by its item's
   * append, which the embedded event store's commit delay (EVENT_GROUP_WAIT_MS) and the projector's batch wait for
   */
  signing: { count: () => number };
}

export function createWiring(config: Config, log: Logger, clocks?: Partial<Clocks>): Wiring {
  const roles = rolesOf(config.role);
  const serviceClocks = clocksWith(clocks);
  return {
    config,
    log,
    roles,
    bundlerRuns: roles.bundler && config.bundler.enabled,
    instanceId: `${process.pid}-${randomUUID()}`,
    clocks: serviceClocks,
    now: serviceClocks.wall,
    heightClock: anchoredWall(serviceClocks),
    signing: { count: () => 0 },
  };
}
