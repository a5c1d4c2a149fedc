//! `tui tablebase build` on a disk without room for the table: refused at once with the
//! directory, the size and the free space, before minutes of solving, leaving nothing behind.

use std::process::Command;

use tigers_testkit::disk::Tmpfs;

#[test]
fn a_build_without_room_is_refused_before_it_solves() {
	let Some(fs) = Tmpfs::mount("tui-build", 16) else {
		return;
	};
	let out = fs.dir().join("tables").join("movement.tb");
	let output = Command::new(env!("CARGO_BIN_EXE_tui"))
		.args(["tablebase", "build", "--threads", "1", "--out"])
		.arg(&out)
		.output()
		.unwrap();
	let stderr = String::from_utf8_lossy(&output.stderr);
	assert!(!output.status.success(), "{stderr}");
	assert!(
		stderr.contains("no room for the tablebase in") && stderr.contains("MiB are free"),
		"{stderr}"
	);
	assert!(stderr.contains(&fs.dir().display().to_string()), "{stderr}");
	assert_eq!(std::fs::read_dir(fs.dir()).unwrap().count(), 0);
}
