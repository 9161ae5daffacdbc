/** the metadata of every event the bundler appends: its correlation id names it in the history */
export const BUNDLER = { correlationId: 'bundler' } as const;
