//! TLS as libpq's `sslmode` and `sslrootcert` mean it, with rustls: which certificates are
//! trusted, and whether the server's name must be in its certificate.

use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::error::PgError;

/// How the connection to PostgreSQL is secured: libpq's `sslmode`, with its names.
///
/// `prefer` and `require` encrypt without checking who answers (as libpq, unless a root
/// certificate is given: then `require` checks it as `verify-ca` does); `verify-ca` checks that
/// the server's certificate comes from a trusted authority, `verify-full` also that it names the
/// host connected to. Only `verify-full` stops someone on the path from posing as the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SslMode {
    /// Plain text only.
    Disable,
    /// TLS if the server offers it, else plain text (libpq's default, and this one's).
    Prefer,
    /// TLS or no connection; the certificate is not checked (unless a root certificate is given).
    Require,
    /// TLS, the certificate signed by a trusted authority; any host name.
    VerifyCa,
    /// TLS, the certificate signed by a trusted authority and naming the host.
    VerifyFull,
}

/// Each mode and its name in a connection string.
const NAMES: [(SslMode, &str); 5] = [
    (SslMode::Disable, "disable"),
    (SslMode::Prefer, "prefer"),
    (SslMode::Require, "require"),
    (SslMode::VerifyCa, "verify-ca"),
    (SslMode::VerifyFull, "verify-full"),
];

impl SslMode {
    /// The mode a connection string names, or an error of `sslmode` listing the names.
    pub(crate) fn parse(value: &str) -> Result<Self, PgError> {
        let named = NAMES.iter().find(|(_, name)| *name == value);
        named.map(|(mode, _)| *mode).ok_or_else(|| {
            PgError::setting(
                "sslmode",
                format!(
                    "`{}` is not a mode: write `disable`, `prefer`, `require`, `verify-ca` or \
                     `verify-full`",
                    value.escape_debug()
                ),
            )
        })
    }

    /// Its name in a connection string.
    pub(crate) fn name(self) -> &'static str {
        let named = NAMES.iter().find(|(mode, _)| *mode == self);
        named.expect("every mode is named").1
    }

    /// What tokio-postgres is told: whether TLS is tried, and whether it is required.
    pub(crate) fn negotiation(self) -> tokio_postgres::config::SslMode {
        match self {
            SslMode::Disable => tokio_postgres::config::SslMode::Disable,
            SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
            _ => tokio_postgres::config::SslMode::Require,
        }
    }
}

/// `sslmode` and `sslrootcert` as given; [`Ssl::connector`] decides what they mean together.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ssl {
    pub(crate) mode: Option<SslMode>,
    /// A PEM file of the certificates trusted, or `system` for the system's.
    pub(crate) root_cert: Option<String>,
}

impl Ssl {
    /// The mode in force: as given; else `verify-full` with `sslrootcert=system`, as libpq 16
    /// makes it, else `prefer`. `require` with a root certificate checks it, as libpq does.
    pub(crate) fn mode(&self) -> SslMode {
        match (self.mode, self.root_cert.as_deref()) {
            (Some(SslMode::Require), Some(_)) => SslMode::VerifyCa,
            (Some(mode), _) => mode,
            (None, Some("system")) => SslMode::VerifyFull,
            (None, _) => SslMode::Prefer,
        }
    }

    /// The TLS connector: the trusted certificates read now (a file that cannot be read, or
    /// holds none, is an error of `sslrootcert`).
    pub(crate) fn connector(&self) -> Result<MakeRustlsConnect, PgError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .expect("ring's provider has TLS 1.2 and 1.3");
        let mode = self.mode();
        let chain = match mode {
            SslMode::Disable | SslMode::Prefer | SslMode::Require => {
                if self.root_cert.as_deref() == Some("system") {
                    return Err(PgError::setting(
                        "sslmode",
                        format!(
                            "`{}` does not check the certificate, while `sslrootcert=system` \
                             asks for it: write `sslmode=verify-full`",
                            mode.name()
                        ),
                    ));
                }
                None
            }
            SslMode::VerifyCa | SslMode::VerifyFull => Some(
                WebPkiServerVerifier::builder_with_provider(
                    Arc::new(self.roots()?),
                    provider.clone(),
                )
                .build()
                .map_err(|e| PgError::setting("sslrootcert", e.to_string()))?,
            ),
        };
        let verifier: Arc<dyn ServerCertVerifier> = match chain {
            Some(webpki) if mode == SslMode::VerifyFull => webpki,
            chain => Arc::new(Libpq { chain, provider }),
        };
        let config = builder
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(MakeRustlsConnect::new(config))
    }

    /// The certificates trusted: those of `sslrootcert`, or the system's when it is `system` or
    /// not given.
    fn roots(&self) -> Result<RootCertStore, PgError> {
        const FIX: &str =
            "a PEM file of the certificates of the authorities that sign the server's certificate";
        let (certificates, from) = match self.root_cert.as_deref() {
            None | Some("system") => {
                let found = rustls_native_certs::load_native_certs();
                (found.certs, "the system's store".to_owned())
            }
            Some(path) => {
                let read = CertificateDer::pem_file_iter(path)
                    .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>());
                let file = format!("`{}`", path.escape_debug());
                let why = |e| format!("cannot read {file}: {e}; give {FIX}");
                let certificates = read.map_err(|e| PgError::setting("sslrootcert", why(e)))?;
                (certificates, file)
            }
        };
        let mut roots = RootCertStore::empty();
        if roots.add_parsable_certificates(certificates).0 == 0 {
            let why = format!("no certificate found in {from}: give `sslrootcert` {FIX}");
            return Err(PgError::setting("sslrootcert", why));
        }
        Ok(roots)
    }
}

/// `prefer` and `require` (`chain` is `None`): encrypted, whoever answers; `verify-ca`: the
/// chain checked as `verify-full` checks it, the name not (rustls checks the chain before the
/// name, so "not valid for this name" means the chain was found good). The handshake's
/// signatures are checked in every mode, as they prove the server holds the key of the
/// certificate it showed (which SCRAM's channel binding then ties the password exchange to).
#[derive(Debug)]
struct Libpq {
    chain: Option<Arc<WebPkiServerVerifier>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Libpq {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        match chain.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            checked => checked,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algorithms = &self.provider.signature_verification_algorithms;
        verify_tls12_signature(message, cert, dss, algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algorithms = &self.provider.signature_verification_algorithms;
        verify_tls13_signature(message, cert, dss, algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
