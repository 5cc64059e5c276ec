//! Sealing cost: the server's sealer (claims + AES-256-GCM + base64url, sealed then unsealed)
//! beside raw AES-256-GCM encrypt + decrypt of the same bytes (fresh random nonce), the floor.
//!
//! `cargo bench -p roundtrip --bench seal -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use aes_gcm::aead::{Aead, AeadCore, KeyInit};
use aes_gcm::{Aes256Gcm, Key};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use roundtrip::RequestStateSecurity;
use roundtrip::seal::SealBench;
use serde_json::{Value, json};

const SIZES: [usize; 3] = [256, 1024, 8192];

fn seal(c: &mut Criterion) {
    let arguments = json!({"from": "CDG", "to": "OSL", "passengers": 2, "date": "2026-08-01"});
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    let sealer =
        SealBench::new(Some(RequestStateSecurity::new().keys([*b"roundtrip test key 7: not secret"])), arguments)
            .expect("a valid policy");
    let cipher = Aes256Gcm::new(Key::<Aes256Gcm>::from_slice(&[7u8; 32]));
    let mut rng = rand::thread_rng();

    let mut group = c.benchmark_group("seal_roundtrip");
    for size in SIZES {
        let state = vec![0x42_u8; size];
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("sealer", size), &state, |b, state| {
            b.iter(|| {
                let token = sealer.seal(black_box(state)).expect("seals");
                let opened = sealer.unseal(&Value::String(token)).expect("unseals");
                black_box(opened)
            });
        });
        group.bench_with_input(BenchmarkId::new("raw_aes_256_gcm", size), &state, |b, state| {
            b.iter(|| {
                let nonce = Aes256Gcm::generate_nonce(&mut rng);
                let sealed = cipher.encrypt(&nonce, black_box(state.as_slice())).expect("encrypts");
                let opened = cipher.decrypt(&nonce, sealed.as_slice()).expect("decrypts");
                black_box(opened)
            });
        });
    }
    group.finish();

    let mut group = c.benchmark_group("seal_parts_1k");
    let state = vec![0x42_u8; 1024];
    let token = Value::String(sealer.seal(&state).expect("seals"));
    group.bench_function("seal", |b| b.iter(|| black_box(sealer.seal(black_box(&state)).expect("seals"))));
    group.bench_function("unseal", |b| b.iter(|| black_box(sealer.unseal(black_box(&token)).expect("unseals"))));
    group.finish();
}

criterion_group!(benches, seal);
criterion_main!(benches);
