import { expect } from 'chai';
import { clientKeyOf, networkKeyOf } from '../../src/domain/clientKey.js';

describe('clientKeyOf: the key per-client limits count under', () => {
  it('keeps an IPv4 address, also written IPv4-mapped', () => {
    expect(clientKeyOf('203.0.113.7')).to.equal('203.0.113.7');
    expect(clientKeyOf('::ffff:203.0.113.7')).to.equal('203.0.113.7');
  });

  it('counts IPv6 addresses by their /64, however they are written', () => {
    expect(clientKeyOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).to.equal('2001:db8:1:2::/64');
    expect(clientKeyOf('2001:0db8:0001:0002::1')).to.equal('2001:db8:1:2::/64');
    expect(clientKeyOf('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(clientKeyOf('fe80::1%eth0')).to.equal('fe80:0:0:0::/64');
    expect(clientKeyOf('::1')).to.equal('0:0:0:0::/64');
  });

  it('puts an unknown address under one key', () => {
    expect(clientKeyOf(undefined)).to.equal('unknown');
    expect(clientKeyOf('')).to.equal('unknown');
  });
});

describe('networkKeyOf: the key per-network connection caps count under', () => {
  it('counts IPv4 addresses by their /24, also written IPv4-mapped', () => {
    expect(networkKeyOf('203.0.113.7')).to.equal('203.0.113.0/24');
    expect(networkKeyOf('::ffff:203.0.113.200')).to.equal('203.0.113.0/24');
    expect(networkKeyOf('127.0.5.1')).to.not.equal(networkKeyOf('127.0.6.1'));
  });

  it('counts IPv6 addresses by their /48, however they are written', () => {
    expect(networkKeyOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).to.equal('2001:db8:1::/48');
    expect(networkKeyOf('2001:0db8:0001:ffff::1')).to.equal('2001:db8:1::/48');
    expect(networkKeyOf('::1')).to.equal('0:0:0::/48');
  });

  it('puts an unknown address under one key', () => {
    expect(networkKeyOf(undefined)).to.equal('unknown');
  });
});
