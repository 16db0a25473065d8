import { X509Certificate, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { request, createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { expect } from 'chai';
import fc from 'fast-check';
import { createCertificateAuthority, issueCertificate } from '../../../src/testing/pki/index.js';

describe('testing/pki', () => {
  const ca = createCertificateAuthority({ commonName: 'spec-ca' });
  const caCert = new X509Certificate(ca.certPem);

  describe('createCertificateAuthority', () => {
    it('makes a self-signed CA certificate that node parses as a CA', () => {
      expect(caCert.ca).to.equal(true);
      expect(caCert.subject).to.equal('CN=spec-ca');
      expect(caCert.issuer).to.equal('CN=spec-ca');
      expect(caCert.verify(caCert.publicKey)).to.equal(true);
      expect(ca.commonName).to.equal('spec-ca');
    });

    it('backdates notBefore by about a minute so clock skew never makes a fresh certificate invalid', () => {
      const from = new Date(caCert.validFrom).getTime();
      expect(from).to.be.lessThan(Date.now() - 30_000);
      expect(new Date(caCert.validTo).getTime() - from).to.be.closeTo(3650 * 86_400_000, 1000);
    });

    it('rejects an empty common name and a non-positive validity with a clear error', () => {
      expect(() => createCertificateAuthority({ commonName: '' })).to.throw(TypeError, /commonName/);
      expect(() => createCertificateAuthority({ validDays: 0 })).to.throw(RangeError, /validDays/);
    });
  });

  describe('issueCertificate', () => {
    const server = issueCertificate(ca, {
      commonName: 'kube-apiserver',
      dnsNames: ['localhost', 'kubernetes.default.svc'],
      ipAddresses: ['127.0.0.1', '::1'],
      usage: 'server',
    });
    const serverCert = new X509Certificate(server.certPem);

    it('issues a leaf signed by the CA with the requested subject alternative names', () => {
      expect(serverCert.ca).to.equal(false);
      expect(serverCert.verify(caCert.publicKey)).to.equal(true);
      expect(serverCert.checkIssued(caCert)).to.equal(true);
      expect(serverCert.issuer).to.equal('CN=spec-ca');
      expect(serverCert.checkIP('127.0.0.1')).to.equal('127.0.0.1');
      expect(serverCert.checkIP('::1')).to.equal('::1');
      expect(serverCert.checkHost('kubernetes.default.svc')).to.equal('kubernetes.default.svc');
      expect(serverCert.checkIP('127.0.0.2')).to.equal(undefined);
    });

    it('sets extended key usage from the usage option', () => {
      const serverAuth = '1.3.6.1.5.5.7.3.1';
      const clientAuth = '1.3.6.1.5.5.7.3.2';
      const usageOf = (usage: 'server' | 'client' | 'both') =>
        new X509Certificate(issueCertificate(ca, { commonName: 'x', usage }).certPem).keyUsage;
      expect(usageOf('server')).to.deep.equal([serverAuth]);
      expect(usageOf('client')).to.deep.equal([clientAuth]);
      expect(usageOf('both')).to.deep.equal([serverAuth, clientAuth]);
    });

    it('puts every organization in an O= attribute before the common name', () => {
      const admin = new X509Certificate(
        issueCertificate(ca, { commonName: 'admin', organizations: ['system:masters', 'team'], usage: 'client' })
          .certPem,
      );
      expect(admin.subject.split('\n')).to.deep.equal(['O=system:masters', 'O=team', 'CN=admin']);
    });

    it('is not verified by a different CA', () => {
      const other = new X509Certificate(createCertificateAuthority({ commonName: 'spec-ca' }).certPem);
      expect(serverCert.verify(other.publicKey)).to.equal(false);
    });

    it('returns a private key matching the certificate', () => {
      expect(serverCert.checkPrivateKey(createPrivateKey(server.keyPem))).to.equal(true);
    });

    it('signs with an RSA CA key too, using sha256WithRSAEncryption', () => {
      const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const rsaCa = { ...ca, keyPem: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
      const leaf = new X509Certificate(issueCertificate(rsaCa, { commonName: 'rsa-signed', usage: 'client' }).certPem);
      expect(leaf.verify(rsa.publicKey)).to.equal(true);
      expect(leaf.issuer).to.equal('CN=spec-ca');
    });

    it('rejects bad input with errors that name the field', () => {
      expect(() => issueCertificate(ca, { commonName: '', usage: 'server' })).to.throw(TypeError, /commonName/);
      expect(() => issueCertificate(ca, { commonName: 'x', usage: 'peer' as 'server' })).to.throw(TypeError, /usage/);
      expect(() => issueCertificate(ca, { commonName: 'x', usage: 'server', ipAddresses: ['10.0.0.0/8'] })).to.throw(
        TypeError,
        /10\.0\.0\.0\/8/,
      );
      expect(() => issueCertificate(ca, { commonName: 'x', usage: 'server', dnsNames: ['has space'] })).to.throw(
        TypeError,
        /dnsNames\[0\]/,
      );
      expect(() => issueCertificate({ ...ca, keyPem: 'nope' }, { commonName: 'x', usage: 'server' })).to.throw(
        TypeError,
        /keyPem/,
      );
      expect(() => issueCertificate({ ...ca, certPem: 'nope' }, { commonName: 'x', usage: 'server' })).to.throw(
        TypeError,
        /CERTIFICATE/,
      );
    });

    it('encodes any IPv4 or IPv6 address so that node matches it back', () => {
      fc.assert(
        fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (ip) => {
          const cert = new X509Certificate(
            issueCertificate(ca, { commonName: 'ip', ipAddresses: [ip], usage: 'server' }).certPem,
          );
          expect(cert.checkIP(ip), ip).to.be.a('string');
        }),
        { numRuns: 40 },
      );
    });
  });

  describe('over real TLS on 127.0.0.1', () => {
    let httpsServer: Server | undefined;
    const serving = issueCertificate(ca, {
      commonName: 'localhost',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
    });
    const client = issueCertificate(ca, { commonName: 'admin', organizations: ['system:masters'], usage: 'client' });

    before(async () => {
      httpsServer = createServer(
        { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
        (req, res) => {
          res.setHeader('connection', 'close');
          res.end((req.socket as TLSSocket).getPeerCertificate().subject.CN);
        },
      );
      await new Promise<void>((resolve) => httpsServer!.listen(0, '127.0.0.1', resolve));
    });

    after(async () => {
      if (!httpsServer) return;
      httpsServer.closeAllConnections();
      await new Promise<void>((resolve) => httpsServer!.close(() => resolve()));
    });

    const get = (options: { cert?: string; key?: string }): Promise<string> =>
      new Promise((resolve, reject) => {
        const { port } = httpsServer!.address() as AddressInfo;
        const req = request({ host: '127.0.0.1', port, path: '/', ca: ca.certPem, agent: false, ...options }, (res) => {
          let body = '';
          res
            .setEncoding('utf8')
            .on('data', (chunk: string) => (body += chunk))
            .on('end', () => resolve(body))
            .on('error', reject);
        });
        req.on('error', reject).end();
      });

    it('completes a mutual TLS handshake with the CA, the serving and the client certificate', async () => {
      expect(await get({ cert: client.certPem, key: client.keyPem })).to.equal('admin');
    });

    it('refuses a client that presents no certificate', async () => {
      const error = await get({}).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(Error);
    });
  });
});
