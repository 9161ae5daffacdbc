import type { Config } from './config.js';

/**
 * What a process runs, by ROLE. `all` is the single-process default; a split deployment runs the
 * other roles as separate processes (any number of commands and queries replicas; the projector and
 * the bundler hold leases, so extra instances wait and take over when the active one dies).
 */
export function rolesOf(role: Config['role']) {
  const all = role === 'all';
  const commands = all || role === 'commands';
  const queries = all || role === 'queries';
  return {
    commands,
    queries,
    http: commands || queries,
    projector: all || role === 'projector',
    bundler: all || role === 'bundler',
  };
}
