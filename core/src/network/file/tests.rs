use super::*;
use crate::network::train::TrainingExample;
use crate::position::{NAMED_POSITIONS, Position};

fn net() -> Network {
	let mut net = Network::new(
		Shape {
			hidden1: 16,
			hidden2: 8,
		},
		42,
	);
	net.generation = 3;
	net
}

/// A net like [`net`] reading encoding 2.
fn net_of_encoding_2() -> Network {
	let mut net = Network::with_encoding(
		Shape {
			hidden1: 16,
			hidden2: 8,
		},
		Encoding::V2,
		42,
	);
	net.generation = 3;
	net
}

fn metadata_of(net: &Network) -> BTreeMap<&'static str, String> {
	let Shape { hidden1, hidden2 } = net.shape();
	let inputs = net.encoding().inputs();
	BTreeMap::from([
		("format", NET_FORMAT.to_string()),
		("format_version", FORMAT_VERSION.to_string()),
		("input_version", net.encoding().version().to_string()),
		("layers", format!("{inputs},{hidden1},{hidden2},1")),
		("generation", net.generation.to_string()),
	])
}

/// The net's file rewritten with one metadata entry changed.
fn with_metadata(net: &Network, key: &'static str, value: &str) -> Vec<u8> {
	let mut metadata = metadata_of(net);
	metadata.insert(key, value.to_string());
	let tensors: Vec<(&str, Vec<usize>, &[f32])> = net
		.layout()
		.iter()
		.enumerate()
		.map(|(i, (name, _, dims))| (*name, file_shape(*dims), net.tensor(i)))
		.collect();
	write_safetensors(&tensors, &metadata)
}

#[test]
fn save_then_load_is_bit_exact() {
	let net = net();
	// Removed when the test ends, however it ends.
	let dir = tempfile::tempdir().unwrap();
	let path = dir.path().join("net.safetensors");
	net.save(&path).unwrap();
	let loaded = Network::load(&path).unwrap();
	let bits = |n: &Network| n.params().iter().map(|p| p.to_bits()).collect::<Vec<_>>();
	assert_eq!(bits(&loaded), bits(&net));
	assert_eq!(loaded.generation, 3);
	assert_eq!(loaded.shape(), net.shape());
	assert_eq!(sha256_hex(&std::fs::read(&path).unwrap()), net.sha256());
}

#[test]
fn a_net_of_encoding_2_saves_and_loads_bit_exact_and_says_its_encoding() {
	let net = net_of_encoding_2();
	let dir = tempfile::tempdir().unwrap();
	let path = dir.path().join("net.safetensors");
	net.save(&path).unwrap();
	let loaded = Network::load(&path).unwrap();
	assert_eq!(loaded, net);
	assert_eq!(loaded.encoding(), Encoding::V2);
	assert_eq!(loaded.to_bytes(), net.to_bytes());
	let bytes = net.to_bytes();
	let parsed = SafeTensors::deserialize(&bytes).unwrap();
	assert_eq!(parsed.tensor("layer1.weight").unwrap().shape(), [79, 16]);
	let (_, header) = SafeTensors::read_metadata(&bytes).unwrap();
	let metadata = header.metadata().clone().unwrap();
	assert_eq!(metadata["layers"], "79,16,8,1");
	assert_eq!(metadata["input_version"], "2");
	assert_ne!(net.sha256(), self::net().sha256());
}

#[test]
fn a_version_and_layers_that_disagree_are_refused() {
	// Encoding 2 named over encoding 1's layers, and the other way round.
	for (net, version) in [(net(), "2"), (net_of_encoding_2(), "1")] {
		let error =
			Network::from_bytes(&with_metadata(&net, "input_version", version)).unwrap_err();
		assert!(
			matches!(error, NetFileError::BadMetadata { key: "layers", .. }),
			"{error}"
		);
		assert!(
			error
				.to_string()
				.contains(&format!("input encoding {version}")),
			"{error}"
		);
	}
}

#[test]
fn the_same_net_always_writes_the_same_bytes() {
	assert_eq!(net().to_bytes(), net().to_bytes());
	assert_eq!(net().sha256().len(), 64);
	let mut other = net();
	other.generation = 4;
	assert_ne!(other.sha256(), net().sha256());
}

#[test]
fn files_are_readable_as_plain_safetensors() {
	let bytes = net().to_bytes();
	let parsed = SafeTensors::deserialize(&bytes).unwrap();
	let mut names = parsed.names();
	names.sort();
	assert_eq!(
		names,
		[
			"layer1.bias",
			"layer1.weight",
			"layer2.bias",
			"layer2.weight",
			"output.bias",
			"output.weight"
		]
	);
	assert_eq!(parsed.tensor("layer1.weight").unwrap().shape(), [54, 16]);
	assert_eq!(parsed.tensor("output.weight").unwrap().shape(), [8, 1]);
	let (_, header) = SafeTensors::read_metadata(&bytes).unwrap();
	let metadata = header.metadata().clone().unwrap();
	assert_eq!(metadata["layers"], "54,16,8,1");
	assert_eq!(metadata["input_version"], "1");
	assert_eq!(metadata["generation"], "3");
}

#[test]
fn a_truncated_file_is_refused() {
	let bytes = net().to_bytes();
	for cut in [0, 7, 20, bytes.len() / 2, bytes.len() - 1] {
		let error = Network::from_bytes(&bytes[..cut]).unwrap_err();
		assert!(
			matches!(error, NetFileError::Container(_)),
			"cut at {cut}: {error}"
		);
	}
}

#[test]
fn wrong_versions_and_shapes_are_refused() {
	let net = net();
	let error = Network::from_bytes(&with_metadata(&net, "input_version", "3")).unwrap_err();
	assert!(
		matches!(error, NetFileError::InputVersion { found: 3 }),
		"{error}"
	);
	assert!(error.to_string().contains("input encoding 3"));
	assert!(error.to_string().contains("reads encodings 1 and 2 only"));
	let error = Network::from_bytes(&with_metadata(&net, "format_version", "9")).unwrap_err();
	assert!(
		matches!(error, NetFileError::FormatVersion { found: 9 }),
		"{error}"
	);
	let error = Network::from_bytes(&with_metadata(&net, "format", "pytorch")).unwrap_err();
	assert!(matches!(error, NetFileError::Format { .. }), "{error}");
	// The metadata claims a wider first layer than the tensors hold.
	let error = Network::from_bytes(&with_metadata(&net, "layers", "54,32,8,1")).unwrap_err();
	assert!(
		matches!(
			error,
			NetFileError::Tensor {
				tensor: "layer1.weight",
				..
			}
		),
		"{error}"
	);
	let error = Network::from_bytes(&with_metadata(&net, "layers", "53,16,8,1")).unwrap_err();
	assert!(
		matches!(error, NetFileError::BadMetadata { key: "layers", .. }),
		"{error}"
	);
	let error = Network::from_bytes(&with_metadata(&net, "generation", "-1")).unwrap_err();
	assert!(
		matches!(
			error,
			NetFileError::BadMetadata {
				key: "generation",
				..
			}
		),
		"{error}"
	);
	let adam = Adam::new(AdamSettings::default(), net.params().len());
	let error = Network::from_bytes(&adam.to_bytes(net.shape())).unwrap_err();
	assert!(matches!(error, NetFileError::Format { .. }), "{error}");
}

#[test]
fn non_finite_weights_are_refused() {
	let mut net = net();
	net.params_mut()[5] = f32::NAN;
	let error = Network::from_bytes(&net.to_bytes()).unwrap_err();
	assert!(
		matches!(error, NetFileError::NotFinite("layer1.weight")),
		"{error}"
	);
}

fn batch() -> Vec<TrainingExample> {
	NAMED_POSITIONS
		.iter()
		.zip([0.3, -0.6, 0.8, -0.1])
		.map(|((_, text), target)| {
			let p: Position = text.parse().unwrap();
			TrainingExample {
				board: p.board,
				turn: p.turn,
				target,
			}
		})
		.collect()
}

#[test]
fn training_resumes_exactly_from_saved_state() {
	let settings = AdamSettings {
		weight_decay: 1e-4,
		..AdamSettings::default()
	};
	let mut straight = net();
	let mut adam = Adam::new(settings, straight.params().len());
	for _ in 0..5 {
		straight.train_step(&mut adam, &batch());
	}
	let saved_net = straight.to_bytes();
	let saved_adam = adam.to_bytes(straight.shape());
	for _ in 0..5 {
		straight.train_step(&mut adam, &batch());
	}
	let mut resumed = Network::from_bytes(&saved_net).unwrap();
	let mut resumed_adam = Adam::from_bytes(&saved_adam, resumed.shape()).unwrap();
	assert_eq!(resumed_adam.steps(), 5);
	assert_eq!(resumed_adam.settings, settings);
	for _ in 0..5 {
		resumed.train_step(&mut resumed_adam, &batch());
	}
	assert_eq!(resumed.to_bytes(), straight.to_bytes());
	assert_eq!(resumed_adam, adam);
}

#[test]
fn optimizer_state_of_encoding_2_round_trips_and_fits_only_its_net() {
	let mut net = net_of_encoding_2();
	let mut adam = Adam::new(AdamSettings::default(), net.params().len());
	net.train_step(&mut adam, &batch());
	let bytes = adam.to_bytes(net.shape());
	let (_, header) = SafeTensors::read_metadata(&bytes).unwrap();
	assert_eq!(header.metadata().clone().unwrap()["layers"], "79,16,8,1");
	assert_eq!(Adam::from_bytes(&bytes, net.shape()).unwrap(), adam);
	assert_eq!(Adam::from_bytes_for(&bytes, &net).unwrap(), adam);
	// The same shape reading encoding 1 has fewer parameters: the state does not fit it.
	let error = Adam::from_bytes_for(&bytes, &self::net()).unwrap_err();
	assert!(
		matches!(error, NetFileError::BadMetadata { key: "layers", .. }),
		"{error}"
	);
	let version_1 = Adam::new(AdamSettings::default(), self::net().params().len());
	let error = Adam::from_bytes_for(&version_1.to_bytes(net.shape()), &net).unwrap_err();
	assert!(
		matches!(error, NetFileError::BadMetadata { key: "layers", .. }),
		"{error}"
	);
}

#[test]
fn optimizer_state_for_another_shape_is_refused() {
	let net = net();
	let adam = Adam::new(AdamSettings::default(), net.params().len());
	let bytes = adam.to_bytes(net.shape());
	let error = Adam::from_bytes(
		&bytes,
		Shape {
			hidden1: 8,
			hidden2: 8,
		},
	)
	.unwrap_err();
	assert!(
		matches!(error, NetFileError::BadMetadata { key: "layers", .. }),
		"{error}"
	);
}
