//! A small filesystem to fill: a tmpfs mounted on a fresh directory (which needs root, as CI
//! has), and a ballast file that leaves only so many bytes free, for the tests of what the
//! programs do when their disk fills and empties.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted on a fresh directory, unmounted when dropped.
pub struct Tmpfs {
	dir: PathBuf,
	_holder: tempfile::TempDir,
}

impl Tmpfs {
	/// A tmpfs of `megabytes`, or `None` (with a note on stderr) where this process may not
	/// mount one.
	///
	/// # Panics
	///
	/// If no temporary directory can be made.
	pub fn mount(tag: &str, megabytes: u32) -> Option<Tmpfs> {
		let holder = tempfile::Builder::new()
			.prefix(&format!("tigers-disk-{tag}-"))
			.tempdir()
			.expect("a temporary directory");
		let dir = holder.path().join("fs");
		std::fs::create_dir(&dir).expect("the mount point");
		let mounted = Command::new("mount")
			.args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
			.arg(&dir)
			.status()
			.is_ok_and(|status| status.success());
		if !mounted {
			eprintln!("skipped: mounting a tmpfs needs root (CI runs as root)");
			return None;
		}
		Some(Tmpfs {
			dir,
			_holder: holder,
		})
	}

	/// The mounted directory.
	pub fn dir(&self) -> &Path {
		&self.dir
	}
}

impl Drop for Tmpfs {
	fn drop(&mut self) {
		let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
	}
}

/// The bytes an unprivileged process may still write on the filesystem of `dir`.
///
/// # Panics
///
/// If the filesystem cannot be asked.
pub fn free_bytes(dir: &Path) -> u64 {
	let stat = rustix::fs::statvfs(dir).expect("statvfs");
	stat.f_bavail * stat.f_frsize
}

/// Fills the filesystem of `dir` with a file `ballast` until `keep` bytes are left free (or
/// until it is full, for 0); the ballast's path, to remove to free the space again.
///
/// # Panics
///
/// If the ballast file cannot be made.
pub fn fill(dir: &Path, keep: u64) -> PathBuf {
	let path = dir.join("ballast");
	let mut file = std::fs::File::create(&path).expect("the ballast file");
	let chunk = vec![0x5a_u8; 64 * 1024];
	loop {
		let free = free_bytes(dir);
		if free <= keep {
			break;
		}
		let size = (free - keep).min(chunk.len() as u64) as usize;
		if file.write_all(&chunk[..size]).is_err() {
			break;
		}
	}
	let _ = file.sync_all();
	path
}
