import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import {
  bitStringBytes,
  boolean,
  explicit,
  fromPem,
  implicitPrimitive,
  namedBits,
  nullValue,
  objectIdentifier,
  octetString,
  readChildren,
  readElement,
  sequence,
  set,
  time,
  toPem,
  unsignedInteger,
  utf8String,
} from './der.js';
import { ipAddressBytes } from './ip.js';

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface Pem {
  /** `-----BEGIN CERTIFICATE-----` block. */
  readonly certPem: string;
  /** `-----BEGIN PRIVATE KEY-----` block (PKCS#8), which Go, OpenSSL and node all load. */
  readonly keyPem: string;
}

/** A self-signed certificate authority that {@link issueCertificate} signs with. */
export interface CertificateAuthority extends Pem {
  /** The CA's subject common name. */
  readonly commonName: string;
}

/** What an issued certificate may be used for: TLS server, TLS client, or both. */
export type CertificateUsage = 'server' | 'client' | 'both';

/** Options for {@link issueCertificate}. */
export interface IssueOptions {
  /** Subject CN. kube-apiserver takes it as the user name of a client certificate. */
  readonly commonName: string;
  /** Subject O= values. kube-apiserver takes them as groups; `system:masters` is the admin group. */
  readonly organizations?: readonly string[];
  /** subjectAltName DNS names. */
  readonly dnsNames?: readonly string[];
  /** subjectAltName IP addresses, IPv4 or IPv6 literals. */
  readonly ipAddresses?: readonly string[];
  /** Sets extKeyUsage to serverAuth, clientAuth or both. */
  readonly usage: CertificateUsage;
  /** Validity from a minute ago; default 365 days. */
  readonly validDays?: number;
}

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** RFC 5280 keyUsage bit numbers. */
const KeyUsageBit = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const;

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * Creates a self-signed ECDSA P-256 certificate authority.
 *
 * # Guarantees
 * - X.509 v3 with basicConstraints `CA:TRUE` (critical), keyUsage keyCertSign + cRLSign + digitalSignature
 *   (critical), and a subjectKeyIdentifier; node's `X509Certificate#ca` is `true`.
 * - notBefore is one minute in the past so a freshly started server never sees a not-yet-valid certificate;
 *   notAfter is `validDays` (default 3650) later.
 * - The serial is 128 random bits, positive.
 *
 * # Caveats
 * Keys are generated in memory and never written anywhere; callers that need files write `certPem`/`keyPem`.
 */
export function createCertificateAuthority(
  options: { commonName?: string; validDays?: number } = {},
): CertificateAuthority {
  const commonName = options.commonName ?? 'rxkube-test-ca';
  requireText('commonName', commonName);
  const { privateKey, publicKey } = generateEcKeyPair();
  const subject = distinguishedName(commonName, []);
  const keyId = keyIdentifier(publicKey);
  const extensions = [
    extension(OID.basicConstraints, true, sequence(boolean(true))),
    extension(
      OID.keyUsage,
      true,
      namedBits([KeyUsageBit.digitalSignature, KeyUsageBit.keyCertSign, KeyUsageBit.cRLSign]),
    ),
    extension(OID.subjectKeyIdentifier, false, octetString(keyId)),
    extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, keyId))),
  ];
  const certificate = signCertificate({
    issuer: subject,
    subject,
    publicKey,
    validDays: validDaysOf(options.validDays, 3650),
    extensions,
    signer: privateKey,
  });
  return { commonName, certPem: toPem('CERTIFICATE', certificate), keyPem: pemOfPrivateKey(privateKey) };
}

/**
 * Issues an ECDSA P-256 leaf certificate signed by `ca`.
 *
 * # Guarantees
 * - basicConstraints `CA:FALSE` (critical), keyUsage digitalSignature + keyEncipherment (critical), extKeyUsage
 *   per `usage`, subjectAltName with every DNS name and IP given, subject/authority key identifiers.
 * - The issuer name is copied byte for byte from the CA certificate's subject, so chains verify with any CA
 *   certificate, not only ones made by {@link createCertificateAuthority}. RSA and EC CA keys both sign.
 * - Bad input (empty common name, unknown usage, a malformed IP, non-positive validity, a CA whose PEMs do not
 *   parse) throws a `TypeError`/`RangeError` that names the field; nothing is issued.
 *
 * # Caveats
 * Every organization becomes its own RDN (one O= attribute each) and precedes CN, as Go's `pkix.Name` orders them.
 */
export function issueCertificate(ca: CertificateAuthority, options: IssueOptions): Pem {
  requireText('commonName', options.commonName);
  const usage = extendedKeyUsages(options.usage);
  const organizations = options.organizations ?? [];
  organizations.forEach((org, i) => requireText(`organizations[${i}]`, org));
  const dnsNames = options.dnsNames ?? [];
  dnsNames.forEach((name, i) => {
    if (typeof name !== 'string' || !/^[\x21-\x7e]+$/.test(name))
      throw new TypeError(`dnsNames[${i}] is not a DNS name: ${JSON.stringify(name)}`);
  });
  const ips = (options.ipAddresses ?? []).map(ipAddressBytes);

  const caKey = parsePrivateKey(ca.keyPem);
  const caCert = fromPem('CERTIFICATE', ca.certPem);
  const issuer = subjectOf(caCert);
  const { privateKey, publicKey } = generateEcKeyPair();

  const extensions = [
    extension(OID.basicConstraints, true, sequence()),
    extension(OID.keyUsage, true, namedBits([KeyUsageBit.digitalSignature, KeyUsageBit.keyEncipherment])),
    extension(OID.extKeyUsage, false, sequence(...usage.map(objectIdentifier))),
    extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(publicKey))),
    extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, keyIdentifier(createPublicKey(caKey))))),
  ];
  if (dnsNames.length > 0 || ips.length > 0) {
    const names = [
      ...dnsNames.map((name) => implicitPrimitive(2, Buffer.from(name, 'ascii'))),
      ...ips.map((ip) => implicitPrimitive(7, ip)),
    ];
    extensions.push(extension(OID.subjectAltName, false, sequence(...names)));
  }
  const certificate = signCertificate({
    issuer,
    subject: distinguishedName(options.commonName, organizations),
    publicKey,
    validDays: validDaysOf(options.validDays, 365),
    extensions,
    signer: caKey,
  });
  return { certPem: toPem('CERTIFICATE', certificate), keyPem: pemOfPrivateKey(privateKey) };
}

interface CertificateFields {
  readonly issuer: Buffer;
  readonly subject: Buffer;
  readonly publicKey: KeyObject;
  readonly validDays: number;
  readonly extensions: readonly Buffer[];
  readonly signer: KeyObject;
}

function signCertificate(fields: CertificateFields): Buffer {
  const notBefore = new Date(Math.floor((Date.now() - MINUTE_MS) / 1000) * 1000);
  const notAfter = new Date(notBefore.getTime() + fields.validDays * DAY_MS);
  const algorithm = signatureAlgorithm(fields.signer);
  const tbs = sequence(
    explicit(0, unsignedInteger(2)), // v3
    unsignedInteger(serialNumber()),
    algorithm,
    fields.issuer,
    sequence(time(notBefore), time(notAfter)),
    fields.subject,
    fields.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...fields.extensions)),
  );
  const signature = sign('sha256', tbs, fields.signer);
  return sequence(tbs, algorithm, bitStringBytes(signature));
}

function signatureAlgorithm(key: KeyObject): Buffer {
  switch (key.asymmetricKeyType) {
    case 'ec':
      return sequence(objectIdentifier(OID.ecdsaWithSha256));
    case 'rsa':
      return sequence(objectIdentifier(OID.sha256WithRsa), nullValue());
    default:
      throw new TypeError(`CA key type ${String(key.asymmetricKeyType)} is not supported; use an EC or RSA key`);
  }
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
}

function distinguishedName(commonName: string, organizations: readonly string[]): Buffer {
  const rdn = (oid: string, value: string): Buffer => set(sequence(objectIdentifier(oid), utf8String(value)));
  return sequence(...organizations.map((org) => rdn(OID.organization, org)), rdn(OID.commonName, commonName));
}

/** The raw subject Name of a certificate: Certificate → tbsCertificate → (version?) serial sigAlg issuer validity subject. */
function subjectOf(certificateDer: Buffer): Buffer {
  try {
    const [tbs] = readChildren(readElement(certificateDer).content);
    const fields = readChildren(tbs!.content);
    const skip = fields[0]!.tag === 0xa0 ? 1 : 0;
    const subject = fields[skip + 4];
    if (subject?.tag !== 0x30) throw new RangeError('no subject Name');
    return subject.raw;
  } catch (error) {
    throw new TypeError(`CA certificate does not parse as X.509: ${(error as Error).message}`);
  }
}

/** RFC 7093 §2 method 4: the leftmost 160 bits of the SHA-256 of the SubjectPublicKeyInfo. */
function keyIdentifier(publicKey: KeyObject): Buffer {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest()
    .subarray(0, 20);
}

function serialNumber(): Buffer {
  const serial = randomBytes(16);
  // Positive and exactly 16 bytes: clear the sign bit, set the next one so there is no leading zero to strip.
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  return serial;
}

function extendedKeyUsages(usage: CertificateUsage): string[] {
  switch (usage) {
    case 'server':
      return [OID.serverAuth];
    case 'client':
      return [OID.clientAuth];
    case 'both':
      return [OID.serverAuth, OID.clientAuth];
    default:
      throw new TypeError(`usage must be 'server', 'client' or 'both', got ${JSON.stringify(usage)}`);
  }
}

function generateEcKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

function pemOfPrivateKey(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function parsePrivateKey(pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch (error) {
    throw new TypeError(`CA keyPem is not a private key: ${(error as Error).message}`);
  }
}

function requireText(field: string, value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '')
    throw new TypeError(`${field} must be a non-empty string, got ${JSON.stringify(value)}`);
}

function validDaysOf(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`validDays must be a positive number, got ${value}`);
  return value;
}
