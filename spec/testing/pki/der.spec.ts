import { expect } from 'chai';
import fc from 'fast-check';
import {
  encodeLength,
  fromPem,
  namedBits,
  objectIdentifier,
  readChildren,
  readElement,
  sequence,
  time,
  tlv,
  toPem,
  unsignedInteger,
} from '../../../src/testing/pki/der.js';
import { ipAddressBytes } from '../../../src/testing/pki/ip.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('testing/pki DER encoder', () => {
  it('encodes lengths in short form below 128 and minimal long form above', () => {
    expect(hex(encodeLength(0x7f))).to.equal('7f');
    expect(hex(encodeLength(0x80))).to.equal('8180');
    expect(hex(encodeLength(0x1234))).to.equal('821234');
  });

  it('encodes known object identifiers', () => {
    expect(hex(objectIdentifier('1.2.840.10045.4.3.2'))).to.equal('06082a8648ce3d040302');
    expect(hex(objectIdentifier('2.5.29.19'))).to.equal('0603551d13');
    expect(() => objectIdentifier('1.40')).to.throw(RangeError, /invalid OID/);
  });

  it('encodes unsigned integers minimally and keeps them positive', () => {
    expect(hex(unsignedInteger(0))).to.equal('020100');
    expect(hex(unsignedInteger(2))).to.equal('020102');
    expect(hex(unsignedInteger(Buffer.from([0x00, 0x00, 0x80])))).to.equal('02020080');
  });

  it('drops trailing zero bits from named bit strings', () => {
    expect(hex(namedBits([0, 5, 6]))).to.equal('03020186'); // digitalSignature, keyCertSign, cRLSign
    expect(hex(namedBits([0, 2]))).to.equal('030205a0'); // digitalSignature, keyEncipherment
  });

  it('switches from UTCTime to GeneralizedTime in 2050', () => {
    expect(time(new Date('2049-12-31T23:59:59Z')).toString('latin1', 2)).to.equal('491231235959Z');
    expect(time(new Date('2050-01-01T00:00:00Z')).toString('latin1', 2)).to.equal('20500101000000Z');
  });

  it('reads back any nesting of elements it wrote', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 5 }), (contents) => {
        const encoded = sequence(...contents.map((c) => tlv(0x04, c)));
        const outer = readElement(encoded);
        expect(outer.raw.length).to.equal(encoded.length);
        expect(readChildren(outer.content).map((e) => hex(e.content))).to.deep.equal(contents.map(hex));
      }),
      { numRuns: 100 },
    );
  });

  it('refuses truncated input with an error naming the offset instead of reading past the end', () => {
    expect(() => readElement(Buffer.from('3005040100', 'hex'))).to.throw(RangeError, /offset 0/);
    expect(() => readElement(Buffer.from('3080', 'hex'))).to.throw(RangeError, /indefinite/);
  });

  it('round-trips PEM and names the missing label', () => {
    const der = Buffer.from('hello world, a certificate body');
    expect(hex(fromPem('CERTIFICATE', toPem('CERTIFICATE', der)))).to.equal(hex(der));
    expect(() => fromPem('CERTIFICATE', 'junk')).to.throw(TypeError, /CERTIFICATE/);
  });

  it('expands IPv6 shorthand, including an embedded IPv4 tail', () => {
    expect(hex(ipAddressBytes('::1'))).to.equal('00000000000000000000000000000001');
    expect(hex(ipAddressBytes('fe80::1:2'))).to.equal('fe800000000000000000000000010002');
    expect(hex(ipAddressBytes('::ffff:10.0.0.1'))).to.equal('00000000000000000000ffff0a000001');
    expect(hex(ipAddressBytes('10.0.0.1'))).to.equal('0a000001');
    expect(() => ipAddressBytes('localhost')).to.throw(TypeError, /localhost/);
  });
});
