//! TLS certificates: the check that the coordinator is not about to serve a CA certificate as
//! its own, and `coordinator tls`, which makes a CA and a server certificate it signs.
//!
//! Clients (rustls, in the workers, dashboards and `coordinator status`) refuse a server whose
//! own certificate says it is a CA (`CaUsedAsEndEntity`), and `openssl req -x509`, the usual way
//! to make a self-signed certificate, marks it as one. The coordinator looks for that at start
//! and says what to do instead, rather than leaving every client to fail with the library's
//! words. The check reads the certificate's DER far enough to find its basic constraints
//! (RFC 5280, 4.2.1.9), and no further.

use std::path::{Path, PathBuf};

use rcgen::{
	BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
	KeyUsagePurpose,
};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use tigers_process::dates::Date;

use crate::clock::unix_now;

/// The object identifier of the basic constraints extension, 2.5.29.19, as DER content bytes.
const BASIC_CONSTRAINTS: [u8; 3] = [0x55, 0x1d, 0x13];

/// DER tags used here.
const SEQUENCE: u8 = 0x30;
const BOOLEAN: u8 = 0x01;
const OCTET_STRING: u8 = 0x04;
const OBJECT_IDENTIFIER: u8 = 0x06;
/// `[3] EXPLICIT`, which holds a certificate's extensions.
const EXTENSIONS: u8 = 0xa3;

/// Why a certificate file cannot be served, in a sentence that says what to do.
pub(crate) fn check_served_certificate(path: &Path, pem: &[u8]) -> Result<(), String> {
	let first = CertificateDer::pem_slice_iter(pem).next();
	let der = match first {
		Some(Ok(der)) => der,
		Some(Err(error)) => {
			return Err(format!(
				"{}: not a PEM certificate the coordinator can serve: {error}",
				path.display()
			));
		}
		None => {
			return Err(format!(
				"{}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
				path.display()
			));
		}
	};
	match is_ca(&der) {
		Some(false) => Ok(()),
		Some(true) => Err(format!(
			"{}: this is a CA certificate (basic constraints CA:TRUE, as `openssl req -x509` makes \
			 by default), and TLS clients refuse a CA certificate served as a server's own \
			 (rustls says CaUsedAsEndEntity): serve a server certificate signed by a CA instead, \
			 and give the workers the CA with --tls-ca. `coordinator tls --out DIR --host NAME` \
			 makes both (docs/deploy.md, \"TLS certificates\")",
			path.display()
		)),
		None => Err(format!(
			"{}: the first certificate is not a well-formed X.509 certificate",
			path.display()
		)),
	}
}

/// Whether a DER certificate says it is a CA; `None` if it is not a certificate as RFC 5280
/// lays one out. Without the basic constraints extension a certificate is no CA.
fn is_ca(der: &[u8]) -> Option<bool> {
	let (tag, certificate, _) = element(der)?;
	if tag != SEQUENCE {
		return None;
	}
	let (tag, mut tbs, _) = element(certificate)?;
	if tag != SEQUENCE {
		return None;
	}
	while !tbs.is_empty() {
		let (tag, content, rest) = element(tbs)?;
		tbs = rest;
		if tag != EXTENSIONS {
			continue;
		}
		let (tag, mut extensions, _) = element(content)?;
		if tag != SEQUENCE {
			return None;
		}
		while !extensions.is_empty() {
			let (tag, extension, rest) = element(extensions)?;
			extensions = rest;
			if tag != SEQUENCE {
				return None;
			}
			if let Some(ca) = basic_constraints(extension)? {
				return Some(ca);
			}
		}
	}
	Some(false)
}

/// In an extension's content: `Some(Some(ca))` for the basic constraints, `Some(None)` for
/// another extension, `None` if it is malformed.
fn basic_constraints(extension: &[u8]) -> Option<Option<bool>> {
	let (tag, oid, mut rest) = element(extension)?;
	if tag != OBJECT_IDENTIFIER {
		return None;
	}
	if oid != BASIC_CONSTRAINTS {
		return Some(None);
	}
	let (mut tag, mut value, after) = element(rest)?;
	if tag == BOOLEAN {
		// `critical`, then the value.
		rest = after;
		(tag, value, _) = element(rest)?;
	}
	if tag != OCTET_STRING {
		return None;
	}
	let (tag, constraints, _) = element(value)?;
	if tag != SEQUENCE {
		return None;
	}
	if constraints.is_empty() {
		return Some(Some(false));
	}
	let (tag, flag, _) = element(constraints)?;
	// `cA BOOLEAN DEFAULT FALSE`: absent when false, so the first element may be `pathLen`.
	Some(Some(
		tag == BOOLEAN && flag.first().is_some_and(|b| *b != 0),
	))
}

/// The first DER element of `input`: its tag, its content, and what follows it. Tags of one
/// byte and definite lengths of up to four bytes, which is all X.509 uses.
fn element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
	let (&tag, rest) = input.split_first()?;
	let (&first, rest) = rest.split_first()?;
	let (length, rest) = if first < 0x80 {
		(usize::from(first), rest)
	} else {
		let bytes = usize::from(first & 0x7f);
		if bytes == 0 || bytes > 4 || rest.len() < bytes {
			return None;
		}
		let (digits, rest) = rest.split_at(bytes);
		let length = digits
			.iter()
			.fold(0usize, |length, digit| (length << 8) | usize::from(*digit));
		(length, rest)
	};
	if rest.len() < length {
		return None;
	}
	let (content, rest) = rest.split_at(length);
	Some((tag, content, rest))
}

/// What `coordinator tls` wrote.
#[derive(Debug)]
pub struct Certificates {
	/// The CA's certificate: what workers, dashboards and `status` trust (`--tls-ca`).
	pub ca_certificate: PathBuf,
	/// The CA's private key, to sign another server certificate later.
	pub ca_key: PathBuf,
	/// The coordinator's certificate (`--tls-cert`).
	pub certificate: PathBuf,
	/// The coordinator's private key (`--tls-key`).
	pub key: PathBuf,
}

/// How long the certificates `coordinator tls` makes are valid: ten years for the CA, two for
/// the server's (renewed by running it again with the same CA files kept aside, or a new CA).
const CA_DAYS: u64 = 3652;
const SERVER_DAYS: u64 = 730;

/// Makes a CA and a server certificate for `hosts` (names or IP addresses, as workers write
/// them in `--connect`) signed by it, and writes them to `dir` (created if needed): `ca.pem`,
/// `ca.key`, `coordinator.pem`, `coordinator.key`, the keys readable by their owner only.
/// Files already there are an error unless `overwrite`, so that a CA the fleet trusts is never
/// replaced by mistake.
pub fn make_certificates(
	dir: &Path,
	hosts: &[String],
	overwrite: bool,
) -> Result<Certificates, String> {
	if hosts.is_empty() {
		return Err("name at least one host (--host) that workers will connect to".into());
	}
	let files = Certificates {
		ca_certificate: dir.join("ca.pem"),
		ca_key: dir.join("ca.key"),
		certificate: dir.join("coordinator.pem"),
		key: dir.join("coordinator.key"),
	};
	let all = [
		&files.ca_certificate,
		&files.ca_key,
		&files.certificate,
		&files.key,
	];
	if !overwrite && let Some(there) = all.iter().find(|path| path.exists()) {
		return Err(format!(
			"{} exists: a CA that workers already trust would be replaced; move it away or \
			 pass --force",
			there.display()
		));
	}
	let today = unix_now() as u64 / 86_400;
	let ca_key = KeyPair::generate().map_err(|e| failed(&e))?;
	let ca = ca_params(today)?;
	let ca_certificate = ca.self_signed(&ca_key).map_err(|e| failed(&e))?;
	let key = KeyPair::generate().map_err(|e| failed(&e))?;
	let server = server_params(hosts, today)?;
	let issuer = Issuer::new(ca, &ca_key);
	let certificate = server.signed_by(&key, &issuer).map_err(|e| failed(&e))?;

	std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
	write(&files.ca_certificate, &ca_certificate.pem(), false)?;
	write(&files.ca_key, &ca_key.serialize_pem(), true)?;
	write(&files.certificate, &certificate.pem(), false)?;
	write(&files.key, &key.serialize_pem(), true)?;
	Ok(files)
}

/// The CA's certificate, valid for [`CA_DAYS`] from `today` (days since the Unix epoch): it
/// signs server certificates only, none of another CA.
fn ca_params(today: u64) -> Result<CertificateParams, String> {
	let mut ca = CertificateParams::new(Vec::new()).map_err(|e| failed(&e))?;
	ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
	ca.distinguished_name
		.push(DnType::CommonName, "Tigers and Sheep coordinator CA");
	ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
	set_validity(&mut ca, today, CA_DAYS);
	Ok(ca)
}

/// The coordinator's certificate for `hosts`, valid for [`SERVER_DAYS`] from `today` (days
/// since the Unix epoch).
fn server_params(hosts: &[String], today: u64) -> Result<CertificateParams, String> {
	let mut server = CertificateParams::new(hosts.to_vec())
		.map_err(|error| format!("a host is not a DNS name or an IP address: {error}"))?;
	server.is_ca = IsCa::ExplicitNoCa;
	server
		.distinguished_name
		.push(DnType::CommonName, hosts[0].clone());
	server.key_usages = vec![KeyUsagePurpose::DigitalSignature];
	server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
	set_validity(&mut server, today, SERVER_DAYS);
	Ok(server)
}

/// Makes `params` valid from midnight UTC of `today` (days since the Unix epoch) to midnight
/// `days` later.
fn set_validity(params: &mut CertificateParams, today: u64, days: u64) {
	let midnight = |days: u64| {
		let date = Date::from_unix_days(days as i64);
		// Today by the clock, or a few years on: far inside the years an i32 holds.
		let year = i32::try_from(date.year).expect("a year of this era fits an i32");
		rcgen::date_time_ymd(year, date.month, date.day)
	};
	params.not_before = midnight(today);
	params.not_after = midnight(today + days);
}

/// The sentence for a certificate or key that could not be made.
fn failed(error: &rcgen::Error) -> String {
	format!("cannot make the certificates: {error}")
}

/// Writes `text` to `path`, readable by its owner only if `private`.
fn write(path: &Path, text: &str, private: bool) -> Result<(), String> {
	use std::io::Write as _;
	use std::os::unix::fs::OpenOptionsExt as _;
	let mode = if private { 0o600 } else { 0o644 };
	std::fs::OpenOptions::new()
		.write(true)
		.create(true)
		.truncate(true)
		.mode(mode)
		.open(path)
		.and_then(|mut file| file.write_all(text.as_bytes()))
		.map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::test_support::TestDir;

	fn test_data(file: &str) -> Vec<u8> {
		let path = Path::new(env!("CARGO_MANIFEST_DIR"))
			.join("../worker/tests/data")
			.join(file);
		std::fs::read(path).unwrap()
	}

	#[test]
	fn made_certificates_are_a_ca_and_a_server_certificate_it_signed() {
		let dir = TestDir::new("tls-make");
		let hosts = ["127.0.0.1".to_string(), "coordinator.example".to_string()];
		let made = make_certificates(dir.path(), &hosts, false).unwrap();
		let ca = std::fs::read(&made.ca_certificate).unwrap();
		let served = std::fs::read(&made.certificate).unwrap();
		let der = |pem: &[u8]| CertificateDer::from_pem_slice(pem).unwrap();
		assert_eq!(is_ca(&der(&ca)), Some(true));
		assert_eq!(is_ca(&der(&served)), Some(false));
		assert!(check_served_certificate(&made.certificate, &served).is_ok());
		let error = check_served_certificate(&made.ca_certificate, &ca).unwrap_err();
		assert!(
			error.contains("CA certificate") && error.contains("coordinator tls"),
			"{error}"
		);
		use std::os::unix::fs::PermissionsExt as _;
		for key in [&made.ca_key, &made.key] {
			let mode = std::fs::metadata(key).unwrap().permissions().mode();
			assert_eq!(mode & 0o777, 0o600, "{}", key.display());
		}
		// Nothing is replaced unless asked.
		let again = make_certificates(dir.path(), &hosts, false).unwrap_err();
		assert!(again.contains("ca.pem exists"), "{again}");
		assert_eq!(std::fs::read(&made.ca_certificate).unwrap(), ca);
		make_certificates(dir.path(), &hosts, true).unwrap();
		assert_ne!(std::fs::read(&made.ca_certificate).unwrap(), ca);
		assert!(make_certificates(dir.path(), &[], true).is_err());
	}

	#[test]
	fn the_test_certificates_are_read_as_they_are() {
		// Made without a CA flag for 127.0.0.1: served as is.
		let pem = test_data("test-coordinator.pem");
		assert!(check_served_certificate(Path::new("t.pem"), &pem).is_ok());
		let error = check_served_certificate(Path::new("t.pem"), b"no certificate").unwrap_err();
		assert!(error.contains("holds no PEM certificate"), "{error}");
	}

	#[test]
	fn malformed_der_is_no_certificate_and_never_panics() {
		assert_eq!(is_ca(&[]), None);
		assert_eq!(is_ca(&[0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), None);
		assert_eq!(is_ca(&[0x30, 0x02, 0x30, 0x00]), Some(false));
		let pem = test_data("test-coordinator.pem");
		let der = CertificateDer::from_pem_slice(&pem).unwrap();
		for cut in 0..der.len() {
			let _ = is_ca(&der[..cut]);
		}
	}
}
