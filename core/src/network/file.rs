//! The file formats: a net, and Adam's state, each as a safetensors file.
//!
//! A net file holds six little-endian `F32` tensors, `y = x W + b` per layer:
//!
//! | tensor | shape |
//! |---|---|
//! | `layer1.weight` | `[inputs, hidden1]`: 54 inputs in encoding 1, 79 in encoding 2 |
//! | `layer1.bias` | `[hidden1]` |
//! | `layer2.weight` | `[hidden1, hidden2]` |
//! | `layer2.bias` | `[hidden2]` |
//! | `output.weight` | `[hidden2, 1]` |
//! | `output.bias` | `[1]` |
//!
//! and string metadata: `format` = `tigers-and-sheep-net`, `format_version` = `1`,
//! `input_version` (the net's [`Encoding`], 1 or 2), `layers` = `inputs,hidden1,hidden2,1` and
//! `generation`. A version 1 net's file is byte for byte what it was before version 2 existed.
//!
//! The bytes are written here rather than by the `safetensors` crate so that they are canonical
//! (metadata keys sorted, tensors in name order): the same net always gives the same file, and a
//! net's identity is the sha256 of that file. Reading goes through the `safetensors` crate, which
//! checks the container, and then through our checks of every name, shape and version.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use safetensors::{Dtype, SafeTensors};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::network::train::{Adam, AdamSettings};
use crate::network::{Encoding, Network, Shape};

/// The `format` metadata of net files.
pub const NET_FORMAT: &str = "tigers-and-sheep-net";
/// The `format` metadata of optimizer state files.
pub const ADAM_FORMAT: &str = "tigers-and-sheep-adam";
/// The version of both layouts.
pub const FORMAT_VERSION: u32 = 1;

/// Why a net or optimizer file could not be read or written.
#[derive(Debug, Error)]
pub enum NetFileError {
	/// Reading or writing the file failed.
	#[error("{path}: {source}")]
	Io {
		/// The file.
		path: String,
		/// What the system said.
		source: std::io::Error,
	},
	/// The bytes are not a safetensors file (truncated, or something else entirely).
	#[error("not a readable safetensors file (truncated or corrupt?): {0}")]
	Container(String),
	/// The file is some other kind of safetensors file.
	#[error("the file's format is {found:?}, expected {expected:?}")]
	Format {
		/// The `format` metadata found.
		found: String,
		/// What was expected.
		expected: &'static str,
	},
	/// A metadata entry is missing.
	#[error("the file has no {0:?} metadata")]
	MissingMetadata(&'static str),
	/// A metadata entry does not parse.
	#[error("metadata {key:?} is {value:?}, which is not {what}")]
	BadMetadata {
		/// The key.
		key: &'static str,
		/// The value found.
		value: String,
		/// What it should be.
		what: &'static str,
	},
	/// The file was written by another version of the layout.
	#[error("format version {found}, but this program reads version {FORMAT_VERSION}")]
	FormatVersion {
		/// The version found.
		found: u32,
	},
	/// The net reads its inputs in an encoding this program does not know.
	#[error(
		"the net uses input encoding {found}, but this program reads encodings 1 and 2 only: \
		 read it with the build that wrote it"
	)]
	InputVersion {
		/// The version found.
		found: u32,
	},
	/// A tensor is missing.
	#[error("tensor {0:?} is missing")]
	MissingTensor(&'static str),
	/// A tensor has the wrong shape or type.
	#[error("tensor {tensor:?} is {found}, expected F32 {expected:?}")]
	Tensor {
		/// The tensor.
		tensor: &'static str,
		/// Its expected shape.
		expected: Vec<usize>,
		/// What was found.
		found: String,
	},
	/// A weight is NaN or infinite.
	#[error("tensor {0:?} holds a value that is not finite")]
	NotFinite(&'static str),
}

/// The hex sha256 of some bytes: a net's identity is this over its file.
pub fn sha256_hex(bytes: &[u8]) -> String {
	hex(&Sha256::digest(bytes))
}

/// Bytes in lower-case hex, two digits each.
pub fn hex(bytes: &[u8]) -> String {
	bytes
		.iter()
		.fold(String::with_capacity(2 * bytes.len()), |mut hex, byte| {
			let _ = write!(hex, "{byte:02x}");
			hex
		})
}

/// The canonical safetensors bytes of named `F32` tensors and string metadata.
fn write_safetensors(
	tensors: &[(&str, Vec<usize>, &[f32])],
	metadata: &BTreeMap<&str, String>,
) -> Vec<u8> {
	let mut order: Vec<usize> = (0..tensors.len()).collect();
	order.sort_by_key(|&i| tensors[i].0);
	let mut header = String::from("{\"__metadata__\":{");
	for (i, (key, value)) in metadata.iter().enumerate() {
		let comma = if i > 0 { "," } else { "" };
		let _ = write!(header, "{comma}{}:{}", json_string(key), json_string(value));
	}
	header.push('}');
	let mut offset = 0;
	for &i in &order {
		let (name, shape, data) = &tensors[i];
		let end = offset + 4 * data.len();
		let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
		let _ = write!(
			header,
			",{}:{{\"dtype\":\"F32\",\"shape\":[{}],\"data_offsets\":[{offset},{end}]}}",
			json_string(name),
			dims.join(",")
		);
		offset = end;
	}
	header.push('}');
	// Pad the header with spaces to a multiple of 8 bytes, as safetensors writers do, so the
	// data that follows stays aligned.
	while header.len() % 8 != 0 {
		header.push(' ');
	}
	let mut bytes = Vec::with_capacity(8 + header.len() + offset);
	bytes.extend_from_slice(&(header.len() as u64).to_le_bytes());
	bytes.extend_from_slice(header.as_bytes());
	for &i in &order {
		for value in tensors[i].2 {
			bytes.extend_from_slice(&value.to_le_bytes());
		}
	}
	bytes
}

fn json_string(text: &str) -> String {
	let mut out = String::with_capacity(text.len() + 2);
	out.push('"');
	for c in text.chars() {
		match c {
			'"' => out.push_str("\\\""),
			'\\' => out.push_str("\\\\"),
			c if (c as u32) < 0x20 => {
				let _ = write!(out, "\\u{:04x}", c as u32);
			}
			c => out.push(c),
		}
	}
	out.push('"');
	out
}

/// A parsed file: the container and its metadata.
struct Reader<'a> {
	tensors: SafeTensors<'a>,
	metadata: std::collections::HashMap<String, String>,
}

impl<'a> Reader<'a> {
	fn new(bytes: &'a [u8], format: &'static str) -> Result<Reader<'a>, NetFileError> {
		let container = |e: safetensors::SafeTensorError| NetFileError::Container(e.to_string());
		let (_, header) = SafeTensors::read_metadata(bytes).map_err(container)?;
		let metadata = header.metadata().clone().unwrap_or_default();
		let tensors = SafeTensors::deserialize(bytes).map_err(container)?;
		let reader = Reader { tensors, metadata };
		let found = reader.text("format")?;
		if found != format {
			return Err(NetFileError::Format {
				found: found.to_string(),
				expected: format,
			});
		}
		let version = reader.number("format_version")?;
		if version != u64::from(FORMAT_VERSION) {
			return Err(NetFileError::FormatVersion {
				found: version as u32,
			});
		}
		Ok(reader)
	}

	fn text(&self, key: &'static str) -> Result<&str, NetFileError> {
		self.metadata
			.get(key)
			.map(String::as_str)
			.ok_or(NetFileError::MissingMetadata(key))
	}

	fn number(&self, key: &'static str) -> Result<u64, NetFileError> {
		let value = self.text(key)?;
		value.parse().map_err(|_| NetFileError::BadMetadata {
			key,
			value: value.to_string(),
			what: "a whole number",
		})
	}

	fn float(&self, key: &'static str) -> Result<f32, NetFileError> {
		let value = self.text(key)?;
		value
			.parse::<f32>()
			.ok()
			.filter(|v| v.is_finite())
			.ok_or_else(|| NetFileError::BadMetadata {
				key,
				value: value.to_string(),
				what: "a finite number",
			})
	}

	fn tensor(&self, name: &'static str, shape: &[usize]) -> Result<Vec<f32>, NetFileError> {
		let view = self
			.tensors
			.tensor(name)
			.map_err(|_| NetFileError::MissingTensor(name))?;
		if view.dtype() != Dtype::F32 || view.shape() != shape {
			return Err(NetFileError::Tensor {
				tensor: name,
				expected: shape.to_vec(),
				found: format!("{:?} {:?}", view.dtype(), view.shape()),
			});
		}
		let values: Vec<f32> = view
			.data()
			.chunks_exact(4)
			.map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
			.collect();
		if values.iter().any(|v| !v.is_finite()) {
			return Err(NetFileError::NotFinite(name));
		}
		Ok(values)
	}
}

/// Tensor shapes as written: biases one-dimensional.
fn file_shape(dims: [usize; 2]) -> Vec<usize> {
	if dims[1] == 0 {
		vec![dims[0]]
	} else {
		dims.to_vec()
	}
}

/// The `layers` metadata: the encoding whose inputs it starts with, and the hidden widths.
fn parse_layers(text: &str) -> Option<(Encoding, Shape)> {
	let sizes: Vec<usize> = text
		.split(',')
		.map(|s| s.parse().ok())
		.collect::<Option<_>>()?;
	let [inputs, hidden1, hidden2, 1] = sizes[..] else {
		return None;
	};
	let encoding = Encoding::ALL.into_iter().find(|e| e.inputs() == inputs)?;
	let shape = Shape { hidden1, hidden2 };
	shape.is_valid().then_some((encoding, shape))
}

/// The `layers` metadata of a net of `shape` reading `encoding`.
fn layers_text(encoding: Encoding, shape: Shape) -> String {
	format!(
		"{},{},{},1",
		encoding.inputs(),
		shape.hidden1,
		shape.hidden2
	)
}

/// What the `layers` metadata of a net of `encoding` should look like, for errors.
fn layers_wanted(encoding: Encoding) -> &'static str {
	match encoding {
		Encoding::V1 => "54,H1,H2,1 (input encoding 1) with hidden widths from 1 to 256",
		Encoding::V2 => "79,H1,H2,1 (input encoding 2) with hidden widths from 1 to 256",
	}
}

impl Network {
	/// The net as a canonical safetensors file.
	pub fn to_bytes(&self) -> Vec<u8> {
		let metadata = BTreeMap::from([
			("format", NET_FORMAT.to_string()),
			("format_version", FORMAT_VERSION.to_string()),
			("input_version", self.encoding.version().to_string()),
			("layers", layers_text(self.encoding, self.shape)),
			("generation", self.generation.to_string()),
		]);
		let tensors: Vec<(&str, Vec<usize>, &[f32])> = self
			.layout()
			.iter()
			.enumerate()
			.map(|(i, (name, _, dims))| (*name, file_shape(*dims), self.tensor(i)))
			.collect();
		write_safetensors(&tensors, &metadata)
	}

	/// The sha256 of the net's file, in hex: its identity.
	pub fn sha256(&self) -> String {
		sha256_hex(&self.to_bytes())
	}

	/// Reads a net from a file's bytes, refusing anything but a complete net of the current
	/// format in an input encoding this program reads.
	pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetFileError> {
		let reader = Reader::new(bytes, NET_FORMAT)?;
		let input_version = reader.number("input_version")?;
		let encoding = u32::try_from(input_version)
			.ok()
			.and_then(Encoding::from_version)
			.ok_or(NetFileError::InputVersion {
				found: input_version.min(u64::from(u32::MAX)) as u32,
			})?;
		let layers = reader.text("layers")?;
		let shape = match parse_layers(layers) {
			Some((read, shape)) if read == encoding => shape,
			_ => {
				return Err(NetFileError::BadMetadata {
					key: "layers",
					value: layers.to_string(),
					what: layers_wanted(encoding),
				});
			}
		};
		let generation = reader.number("generation")?;
		let mut params = Vec::with_capacity(shape.parameters(encoding));
		for (name, _, dims) in shape.layout(encoding) {
			params.extend(reader.tensor(name, &file_shape(dims))?);
		}
		Ok(Network::from_parts(shape, encoding, params, generation))
	}

	/// Writes the net to `path`, atomically: a temporary file renamed into place.
	pub fn save(&self, path: &Path) -> Result<(), NetFileError> {
		write_atomically(path, &self.to_bytes())
	}

	/// Reads a net from `path`.
	pub fn load(path: &Path) -> Result<Network, NetFileError> {
		let bytes = std::fs::read(path).map_err(|source| io_error(path, source))?;
		Network::from_bytes(&bytes)
	}
}

/// The encoding of a net of `shape` with `parameters` parameters (version 1 if none fits, which
/// a caller's state for another shape would be).
fn encoding_of(shape: Shape, parameters: usize) -> Encoding {
	let fits = Encoding::ALL
		.into_iter()
		.find(|e| shape.parameters(*e) == parameters);
	debug_assert!(fits.is_some(), "{parameters} parameters for {shape}");
	fits.unwrap_or_default()
}

impl Adam {
	/// The optimizer state as a safetensors file, for a net of `shape`; the state's size says
	/// which encoding the net reads, and the `layers` metadata records it as a net file does.
	pub fn to_bytes(&self, shape: Shape) -> Vec<u8> {
		let AdamSettings {
			learning_rate,
			beta1,
			beta2,
			epsilon,
			weight_decay,
		} = self.settings;
		let metadata = BTreeMap::from([
			("format", ADAM_FORMAT.to_string()),
			("format_version", FORMAT_VERSION.to_string()),
			(
				"layers",
				layers_text(encoding_of(shape, self.first.len()), shape),
			),
			("step", self.step.to_string()),
			// Rust prints the shortest text that reads back as the same f32, so these are exact.
			("learning_rate", learning_rate.to_string()),
			("beta1", beta1.to_string()),
			("beta2", beta2.to_string()),
			("epsilon", epsilon.to_string()),
			("weight_decay", weight_decay.to_string()),
		]);
		let n = self.first.len();
		write_safetensors(
			&[
				("adam.first", vec![n], &self.first),
				("adam.second", vec![n], &self.second),
			],
			&metadata,
		)
	}

	/// Reads optimizer state for a net of `shape`, in whichever encoding its `layers` name.
	pub fn from_bytes(bytes: &[u8], shape: Shape) -> Result<Adam, NetFileError> {
		Adam::read(bytes, |(_, read)| read == shape)
	}

	/// Reads optimizer state for `net`: its shape and its encoding.
	pub fn from_bytes_for(bytes: &[u8], net: &Network) -> Result<Adam, NetFileError> {
		Adam::read(bytes, |layers| layers == (net.encoding(), net.shape()))
	}

	/// Reads optimizer state whose `layers` metadata `fits`.
	fn read(bytes: &[u8], fits: impl Fn((Encoding, Shape)) -> bool) -> Result<Adam, NetFileError> {
		let reader = Reader::new(bytes, ADAM_FORMAT)?;
		let layers = reader.text("layers")?;
		let Some((encoding, shape)) = parse_layers(layers).filter(|read| fits(*read)) else {
			return Err(NetFileError::BadMetadata {
				key: "layers",
				value: layers.to_string(),
				what: "the layers of the net being trained",
			});
		};
		let settings = AdamSettings {
			learning_rate: reader.float("learning_rate")?,
			beta1: reader.float("beta1")?,
			beta2: reader.float("beta2")?,
			epsilon: reader.float("epsilon")?,
			weight_decay: reader.float("weight_decay")?,
		};
		let n = shape.parameters(encoding);
		Ok(Adam {
			settings,
			step: reader.number("step")?,
			first: reader.tensor("adam.first", &[n])?,
			second: reader.tensor("adam.second", &[n])?,
		})
	}
}

fn io_error(path: &Path, source: std::io::Error) -> NetFileError {
	NetFileError::Io {
		path: path.display().to_string(),
		source,
	}
}

/// Writes `bytes` to a temporary file beside `path`, syncs it and renames it over `path`, so a
/// reader never sees half a file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), NetFileError> {
	use std::io::Write;
	let tmp = path.with_extension("tmp");
	let write = || -> std::io::Result<()> {
		let mut file = std::fs::File::create(&tmp)?;
		file.write_all(bytes)?;
		file.sync_all()?;
		std::fs::rename(&tmp, path)
	};
	write().map_err(|source| io_error(path, source))
}

#[cfg(test)]
mod tests;
