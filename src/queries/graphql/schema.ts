import { buildSchema, type GraphQLSchema } from 'graphql';

/**
 * The gateway GraphQL schema as apps and libraries speak it: the transaction queries of ar.io's
 * gateway (ar-io/ar-io-node `src/routes/graphql/schema/types.graphql`, commit
 * dec86f85bb9585658e424f393083bf6d69a7c5e1), whose field names, types and defaults are kept. Left
 * out: `block`/`blocks` (this service knows only the blocks of its own bundles) and the deprecated
 * `parent` argument (`bundledIn` says the same).
 */
export const GATEWAY_SDL = /* GraphQL */ `
  type Query {
    "Get a transaction by its id"
    transaction(id: ID!): Transaction
    "Get a paginated set of matching transactions using filters."
    transactions(
      ids: [ID!]
      owners: [String!]
      recipients: [String!]
      tags: [TagFilter!]
      bundledIn: [ID!]
      block: BlockFilter
      "Result page size (max: 100)"
      first: Int = 10
      after: String
      sort: SortOrder = HEIGHT_DESC
    ): TransactionConnection!
  }

  enum SortOrder {
    HEIGHT_ASC
    HEIGHT_DESC
  }

  input TagFilter {
    name: String!
    values: [String!]!
    op: TagOperator = EQ
  }

  enum TagOperator {
    EQ
  }

  input BlockFilter {
    min: Int
    max: Int
  }

  type TransactionConnection {
    pageInfo: PageInfo!
    edges: [TransactionEdge!]!
  }

  type TransactionEdge {
    cursor: String!
    node: Transaction!
  }

  type PageInfo {
    hasNextPage: Boolean!
  }

  type Transaction {
    id: ID!
    anchor: String!
    signature: String!
    signatureType: Int
    recipient: String!
    owner: Owner!
    fee: Amount!
    quantity: Amount!
    data: MetaData!
    tags: [Tag!]!
    "Null until the item's bundle is mined and permanent"
    block: Block
    parent: Parent @deprecated(reason: "Use \`bundledIn\`")
    bundledIn: Bundle
  }

  type Parent {
    id: ID!
  }

  type Bundle {
    id: ID!
  }

  type Block {
    id: ID!
    timestamp: Int!
    height: Int!
    previous: ID!
  }

  type MetaData {
    size: String!
    type: String
  }

  type Amount {
    winston: String!
    ar: String!
  }

  type Owner {
    address: String!
    key: String!
  }

  type Tag {
    name: String!
    value: String!
  }
`;

export const gatewaySchema = (): GraphQLSchema => buildSchema(GATEWAY_SDL);
