/**
 * A query this service will not run as asked (a filter list too long, a cursor it never gave, more
 * items examined than its budget, its time up): answered as a GraphQL error with this message, in
 * `{ errors: [...] }` (CONTRACT.md section 10), never as a stall.
 */
export class InvalidQuery extends Error {
  override readonly name = 'InvalidQuery';
}
