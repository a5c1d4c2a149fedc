//! The codec of every call: prost's encoding, with a message that does not decode answered
//! `INVALID_ARGUMENT` (the sender's fault) rather than prost's `INTERNAL`.

use std::marker::PhantomData;

use prost::Message;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic_prost::{ProstDecoder, ProstEncoder};

/// The codec the generated clients and servers use (see `build.rs`).
#[derive(Debug, Clone)]
pub struct WireCodec<T, U> {
	_messages: PhantomData<(T, U)>,
}

impl<T, U> Default for WireCodec<T, U> {
	fn default() -> Self {
		WireCodec {
			_messages: PhantomData,
		}
	}
}

impl<T, U> Codec for WireCodec<T, U>
where
	T: Message + Send + 'static,
	U: Message + Default + Send + 'static,
{
	type Encode = T;
	type Decode = U;
	type Encoder = ProstEncoder<T>;
	type Decoder = WireDecoder<U>;

	fn encoder(&mut self) -> Self::Encoder {
		ProstEncoder::new(BufferSettings::default())
	}

	fn decoder(&mut self) -> Self::Decoder {
		WireDecoder(ProstDecoder::new(BufferSettings::default()))
	}
}

/// Prost's decoder, with a decoding failure turned into `INVALID_ARGUMENT`.
#[derive(Debug, Clone)]
pub struct WireDecoder<U>(ProstDecoder<U>);

impl<U: Message + Default> Decoder for WireDecoder<U> {
	type Item = U;
	type Error = Status;

	fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
		self.0.decode(buf).map_err(|status| {
			Status::invalid_argument(format!(
				"the message is not a valid {}: {}",
				short_type_name::<U>(),
				status.message()
			))
		})
	}

	fn buffer_settings(&self) -> BufferSettings {
		self.0.buffer_settings()
	}
}

/// `JoinRequest` for `tigers_proto::v1::JoinRequest`.
fn short_type_name<U>() -> &'static str {
	let name = std::any::type_name::<U>();
	name.rsplit("::").next().unwrap_or(name)
}
