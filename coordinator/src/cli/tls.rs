//! `coordinator tls`: a CA and a coordinator certificate signed by it, and how to use them.

use std::path::PathBuf;

use clap::Args;
use tigers_coordinator::server::certificates::make_certificates;

use crate::cli::common::{Failure, print_out};

#[derive(Args)]
pub(crate) struct TlsArgs {
	/// The directory to write the four files to (created if needed).
	#[arg(long, value_name = "DIR")]
	out: PathBuf,
	/// A host name or IP address workers will connect to, as in their --connect URL; as often
	/// as needed.
	#[arg(long = "host", value_name = "NAME", required = true)]
	hosts: Vec<String>,
	/// Replace files already in DIR (a CA the workers trust would no longer be the one in use).
	#[arg(long)]
	force: bool,
}

/// Writes a CA and a coordinator certificate, and says how to use them.
pub(crate) fn run(args: &TlsArgs) -> Result<(), Failure> {
	let made = make_certificates(&args.out, &args.hosts, args.force)
		.map_err(|e| Failure::new("coordinator tls", e))?;
	print_out(format_args!(
		"wrote a CA and a coordinator certificate for {hosts}, valid two years:\n\
		 \x20 coordinator: --tls-cert {cert} --tls-key {key}\n\
		 \x20 workers, dashboards and status: --tls-ca {ca} and https://{host}:PORT\n\
		 \x20 {ca_key} signs new coordinator certificates: keep it private, off the workers",
		hosts = args.hosts.join(", "),
		cert = made.certificate.display(),
		key = made.key.display(),
		ca = made.ca_certificate.display(),
		host = args.hosts[0],
		ca_key = made.ca_key.display(),
	))
}
