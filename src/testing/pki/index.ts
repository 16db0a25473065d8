/**
 * Test PKI: a certificate authority and the server/client certificates a TLS test server and kube-apiserver need,
 * made with node:crypto alone (no openssl).
 * @module
 */
export { createCertificateAuthority, issueCertificate } from './certificates.js';
export type { CertificateAuthority, CertificateUsage, IssueOptions, Pem } from './certificates.js';
