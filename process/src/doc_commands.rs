//! The command lines that a Markdown document shows for one of the binaries, as the words a
//! shell would pass it, so that each binary's tests can check that the README's and docs'
//! commands still parse.
//!
//! A command line is a line of a fenced code block that runs the program as
//! `cargo run --release --bin PROGRAM -- ARGS` or `target/release/PROGRAM ARGS`, perhaps after
//! `VAR=value` assignments or a `timeout ...` prefix. Lines ending in `\` are joined to the
//! next; a `# comment` and whatever follows a pipe, a redirection, `&&`, `;` or `&` are dropped;
//! quotes are taken off. A line that shows a placeholder rather than a value (an optional part
//! in `[...]`, or a word in capitals such as `N`, `NAME`, `H1xH2` or `NET...`) is left out: it
//! is an outline for the reader, not a command to run.

use std::fmt::Display;
use std::io;
use std::path::Path;

/// One command line of a document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
	/// The line of the document it starts on, from 1.
	pub line: usize,
	/// The program's name, then its arguments.
	pub words: Vec<String>,
}

/// Every command line of `markdown`'s fenced code blocks that runs `program`, in order.
pub fn command_lines(markdown: &str, program: &str) -> Vec<CommandLine> {
	let mut found = Vec::new();
	let mut in_block = false;
	let mut pending: Option<(usize, String)> = None;
	for (index, line) in markdown.lines().enumerate() {
		if line.trim_start().starts_with("```") {
			in_block = !in_block;
			pending = None;
			continue;
		}
		if !in_block {
			continue;
		}
		let (start, mut text) = pending.take().unwrap_or((index + 1, String::new()));
		match line.trim_end().strip_suffix('\\') {
			Some(head) => {
				text.push_str(head);
				text.push(' ');
				pending = Some((start, text));
			}
			None => {
				text.push_str(line);
				if let Some(words) = program_words(&shell_words(&text), program) {
					found.push(CommandLine { line: start, words });
				}
			}
		}
	}
	found
}

/// The README's text under the name `README.md`, then every Markdown file in `docs` (the
/// workspace's docs/ folder) under its path, sorted by name.
pub fn documents(readme: &str, docs: &Path) -> io::Result<Vec<(String, String)>> {
	let mut files = Vec::new();
	for entry in std::fs::read_dir(docs)? {
		let path = entry?.path();
		if path.extension().is_some_and(|ext| ext == "md") {
			let name = format!("docs/{}", path.file_name().unwrap_or_default().display());
			files.push((name, std::fs::read_to_string(&path)?));
		}
	}
	files.sort();
	files.insert(0, ("README.md".to_string(), readme.to_string()));
	Ok(files)
}

/// Parses every command line of `documents` (names and texts) that runs `program` with
/// `parse` (the binary's `Cli::try_parse_from`): how many parsed, and for each one refused,
/// where it is, the line and why.
pub fn check<E: Display>(
	program: &str,
	documents: &[(String, String)],
	parse: impl Fn(&[String]) -> Result<(), E>,
) -> (usize, Vec<String>) {
	let mut parsed = 0;
	let mut refused = Vec::new();
	for (name, text) in documents {
		for command in command_lines(text, program) {
			match parse(&command.words) {
				Ok(()) => parsed += 1,
				Err(error) => refused.push(format!(
					"{name}:{}: {}\n{error}",
					command.line,
					command.words.join(" ")
				)),
			}
		}
	}
	(parsed, refused)
}

/// The binaries' test that their documented commands hold: reads the README and every
/// Markdown file in `docs`, and panics, naming each refused line, unless every command line of
/// `program` parses with `parse`, at least `least` of them were found, and a document holding
/// only `misspelt` (a command line with a misspelt flag or subcommand) is refused once.
pub fn assert_documented_commands_parse<E: Display>(
	program: &str,
	readme: &str,
	docs: &Path,
	least: usize,
	misspelt: &str,
	parse: impl Fn(&[String]) -> Result<(), E>,
) {
	let documents = documents(readme, docs).expect("docs/ reads");
	let (parsed, refused) = check(program, &documents, &parse);
	assert!(refused.is_empty(), "{}", refused.join("\n\n"));
	assert!(
		parsed >= least,
		"only {parsed} command lines of {program} found"
	);
	let typo = [("typo.md".to_string(), format!("```\n{misspelt}\n```\n"))];
	assert_eq!(check(program, &typo, &parse).1.len(), 1, "{misspelt}");
}

/// `line` split into words as a shell would, up to a comment, a pipe, a redirection or the
/// end of the first command; quotes taken off.
fn shell_words(line: &str) -> Vec<String> {
	let mut words = Vec::new();
	let mut word: Option<String> = None;
	let mut quote: Option<char> = None;
	for c in line.chars() {
		match (quote, c) {
			(Some(open), c) if c == open => quote = None,
			(Some(_), c) => word.get_or_insert_with(String::new).push(c),
			(None, '"' | '\'') => {
				quote = Some(c);
				word.get_or_insert_with(String::new);
			}
			(None, '#') if word.is_none() => break,
			(None, c) if c.is_whitespace() => words.extend(word.take()),
			(None, c) => word.get_or_insert_with(String::new).push(c),
		}
	}
	words.extend(word);
	let end = words.iter().position(|w| ends_the_command(w));
	words.truncate(end.unwrap_or(words.len()));
	words
}

/// Whether `word` ends the command's words: a pipe, a list operator or a redirection.
fn ends_the_command(word: &str) -> bool {
	matches!(word, "|" | "||" | "&&" | ";" | "&")
		|| word.starts_with(['>', '<'])
		|| word.starts_with("2>")
		|| word.starts_with("1>")
		|| word.starts_with("&>")
}

/// The program's name and arguments, if `words` run `program` and show no placeholder.
fn program_words(words: &[String], program: &str) -> Option<Vec<String>> {
	let mut rest = words;
	while rest.first().is_some_and(|w| is_assignment(w)) {
		rest = &rest[1..];
	}
	if rest.first().is_some_and(|w| w == "timeout") {
		let at = rest
			.iter()
			.position(|w| w == "cargo" || w.contains("release/"))?;
		rest = &rest[at..];
	}
	let cargo = ["cargo", "run", "--release", "--bin", program];
	let args = if rest.len() >= cargo.len() && rest.iter().zip(cargo).all(|(w, c)| w == c) {
		match &rest[cargo.len()..] {
			[] => &[][..],
			[dashes, args @ ..] if dashes == "--" => args,
			_ => return None,
		}
	} else {
		let first = rest.first()?;
		let path = first.strip_prefix("./").unwrap_or(first);
		if path != format!("target/release/{program}") {
			return None;
		}
		&rest[1..]
	};
	if args.iter().any(|w| is_placeholder(w)) {
		return None;
	}
	let mut found = vec![program.to_string()];
	found.extend(args.iter().cloned());
	Some(found)
}

/// Whether `word` is an environment assignment such as `RUST_LOG=info`.
fn is_assignment(word: &str) -> bool {
	word.split_once('=').is_some_and(|(name, _)| {
		!name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
	})
}

/// Whether `word` stands for a value the reader fills in: an optional part in brackets, or
/// capitals (and digits, an `x` between two widths, a trailing `...`).
fn is_placeholder(word: &str) -> bool {
	if word.starts_with('[') {
		return true;
	}
	let word = word.strip_suffix("...").unwrap_or(word);
	word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
		&& word.split('x').all(|part| {
			part.chars()
				.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
		})
}

#[cfg(test)]
mod tests {
	use super::*;

	fn words(line: &str) -> Vec<String> {
		line.split_whitespace().map(String::from).collect()
	}

	#[test]
	fn commands_of_the_program_are_found_in_fenced_blocks_only() {
		let markdown = "\
Run `cargo run --release --bin tool -- --outside` here.

```
cargo run --release --bin tool -- --listen 127.0.0.1:1 --local-workers 2
cargo run --release --bin other -- --listen x
target/release/tool status --connect http://h:1   # a comment
./target/release/tool
cargo run --release --bin tool
cargo build --release --bin tool
install -m 0755 target/release/tool /usr/local/bin/tool
```
";
		let found = command_lines(markdown, "tool");
		assert_eq!(
			found,
			vec![
				CommandLine {
					line: 4,
					words: words("tool --listen 127.0.0.1:1 --local-workers 2"),
				},
				CommandLine {
					line: 6,
					words: words("tool status --connect http://h:1"),
				},
				CommandLine {
					line: 7,
					words: words("tool"),
				},
				CommandLine {
					line: 8,
					words: words("tool"),
				},
			]
		);
	}

	#[test]
	fn continued_lines_join_and_shell_syntax_is_dropped() {
		let markdown = "\
```sh
timeout -s INT 60 target/release/tool --run-dir runs/a \\
    --token \"$TOKEN value\" 2>&1 | tee log.txt
RUST_LOG=info target/release/tool --headless > out.txt
target/release/tool --x 1 && target/release/tool --y 2
```
";
		let found = command_lines(markdown, "tool");
		let lines: Vec<usize> = found.iter().map(|c| c.line).collect();
		assert_eq!(lines, [2, 4, 5]);
		assert_eq!(
			found[0].words,
			["tool", "--run-dir", "runs/a", "--token", "$TOKEN value"]
		);
		assert_eq!(found[1].words, words("tool --headless"));
		assert_eq!(found[2].words, words("tool --x 1"));
	}

	#[test]
	fn each_refused_line_is_told_with_its_place() {
		let documents = [
			(
				"a.md".to_string(),
				"```\ntarget/release/tool --good\n```\n".to_string(),
			),
			(
				"b.md".to_string(),
				"x\n```\ntarget/release/tool --bad\n```\n".to_string(),
			),
		];
		let (parsed, refused) = check("tool", &documents, |words| match words[1].as_str() {
			"--good" => Ok(()),
			_ => Err("unexpected argument"),
		});
		assert_eq!(parsed, 1);
		assert_eq!(refused, ["b.md:3: tool --bad\nunexpected argument"]);
	}

	#[test]
	fn the_readme_comes_first_then_the_docs_by_name() {
		let dir = tempfile::tempdir().unwrap();
		for name in ["b.md", "a.md", "notes.txt"] {
			std::fs::write(dir.path().join(name), name).unwrap();
		}
		let found = documents("readme", dir.path()).expect("the folder reads");
		let names: Vec<&str> = found.iter().map(|(name, _)| name.as_str()).collect();
		assert_eq!(names, ["README.md", "docs/a.md", "docs/b.md"]);
		assert_eq!(found[0].1, "readme");
	}

	#[test]
	fn lines_with_placeholders_are_left_out() {
		let markdown = "\
```
target/release/tool bench --games N
target/release/tool bench --net-shape H1xH2
target/release/tool measure NET...
target/release/tool loadtest --seconds 20 [--rate B]
target/release/tool measure runs/e24-NAME/nets/gen-00000G.safetensors --pairs 100
target/release/tool --run-dir runs/USE --gate incumbent
```
";
		// Capitals inside a path are a name, not a placeholder: the path parses all the same.
		let lines: Vec<usize> = command_lines(markdown, "tool")
			.iter()
			.map(|c| c.line)
			.collect();
		assert_eq!(lines, [6, 7]);
		assert!(is_placeholder("H1xH2") && is_placeholder("N") && !is_placeholder("x"));
		assert!(!is_placeholder("128x64") && !is_placeholder("$TOKEN"));
	}
}
