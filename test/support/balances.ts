/** the balance body of an account with nothing but credits (`GET /admin/accounts/:address`, the credit script) */
export const creditedOnly = (address: string, winc: string) => ({
  address,
  winc,
  creditedWinc: winc,
  spentWinc: '0',
  reservedWinc: '0',
  givenApprovals: [],
});
