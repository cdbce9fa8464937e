// ESP packets of RFC 9227's two transforms, built from RustCrypto's
// Kuznyechik, Magma, MGM, Streebog and HMAC (no gostx code): the key tree of
// RFC 9227 section 4 (KDF_256 per level), nonce 0 | pnum | salt, AAD SPI | SN
// (or SPI | ESN), ESP trailer of RFC 4303 with padding 1, 2, ..., ICV the
// leading bytes of MGM's tag. Prints one JSON object per packet.
use hmac::{Mac, SimpleHmac};
use kuznyechik::Kuznyechik;
use magma::Magma;
use mgm::aead::{generic_array::GenericArray, AeadInPlace, NewAead};
use mgm::Mgm;
use streebog::Streebog256;

fn kdf256(key: &[u8], label: &[u8], seed: &[u8]) -> Vec<u8> {
    let mut m = <SimpleHmac<Streebog256> as Mac>::new_from_slice(key).unwrap();
    m.update(&[1]);
    m.update(label);
    m.update(&[0]);
    m.update(seed);
    m.update(&[1, 0]);
    m.finalize().into_bytes().to_vec()
}

// index = i1 (8 bits) | i2 (16) | i3 (16): the IV's top 40 bits
fn tree(key: &[u8], index: u64) -> Vec<u8> {
    let i1 = (index >> 32) as u8;
    let i2 = ((index >> 16) as u16).to_be_bytes();
    let i3 = (index as u16).to_be_bytes();
    let l1 = kdf256(key, b"level1", &[0, i1]);
    let l2 = kdf256(&l1, b"level2", &i2);
    kdf256(&l2, b"level3", &i3)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{:02x}", x)).collect()
}

struct Case {
    kuz: bool,
    keymat: Vec<u8>,
    spi: u32,
    esn: bool,
    seq: u64,
    iv: u64,
    payload: Vec<u8>,
    nh: u8,
}

fn packet(c: &Case) -> (Vec<u8>, Vec<u8>) {
    let (key, salt) = c.keymat.split_at(32);
    let mk = tree(key, c.iv >> 24);
    let mut body = c.payload.clone();
    let pad = (4 - (body.len() + 2) % 4) % 4;
    for j in 0..pad {
        body.push(j as u8 + 1);
    }
    body.push(pad as u8);
    body.push(c.nh);
    let mut aad = c.spi.to_be_bytes().to_vec();
    if c.esn {
        aad.extend_from_slice(&c.seq.to_be_bytes());
    } else {
        aad.extend_from_slice(&(c.seq as u32).to_be_bytes());
    }
    let mut nonce = vec![0u8];
    nonce.extend_from_slice(&(c.iv as u32).to_be_bytes()[1..]);
    nonce.extend_from_slice(salt);
    let icv = if c.kuz {
        let a = Mgm::<Kuznyechik>::new(GenericArray::from_slice(&mk));
        let t = a.encrypt_in_place_detached(GenericArray::from_slice(&nonce), &aad, &mut body).unwrap();
        t[..12].to_vec()
    } else {
        let a = Mgm::<Magma>::new(GenericArray::from_slice(&mk));
        let t = a.encrypt_in_place_detached(GenericArray::from_slice(&nonce), &aad, &mut body).unwrap();
        t[..8].to_vec()
    };
    let mut p = c.spi.to_be_bytes().to_vec();
    p.extend_from_slice(&(c.seq as u32).to_be_bytes());
    p.extend_from_slice(&c.iv.to_be_bytes());
    p.extend_from_slice(&body);
    p.extend_from_slice(&icv);
    (p, mk)
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

// deterministic bytes (xorshift64*), so a rerun prints the same packets
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e3779b97f4a7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545f4914f6cdd1d) >> 56) as u8
        })
        .collect()
}

fn main() {
    let root1 = "b6180c145c512dbd69d9cea92cac1b5ce1bcfa73792d61af0b440d84b522cc38";
    // the kernel module's Kuznyechik packet (tests/vectors/esp9227.json's
    // first), redone here: it must come out byte for byte
    let kernel = Case {
        kuz: true,
        keymat: unhex(&format!("{}{}", root1, "7b67e6f244f97f0678952e45")),
        spi: 0x5146536b,
        esn: false,
        seq: 1,
        iv: 0,
        payload: unhex("4500003c233500007f01eecc0a6f0ac50a6f0a1d0800f35b020058006162636465666768696a6b6c6d6e6f7071727374757677616263646566676869"),
        nh: 4,
    };
    let want = "5146536b000000010000000000000000189d1288b718f9eabe554b239bee6596c6d4eafd316496ef901cac316005aa076297b224bf6d2be35fd6f67e7b9deb3185ffe9179ca9bf0bdbafc23eae4da56f50b070a15a2bd9738689f8ed";
    assert_eq!(hex(&packet(&kernel).0), want, "the kernel module's packet");
    let mut cases = Vec::new();
    // IPv4 header of LEN bytes (version 4, IHL 5), the rest deterministic
    let ip4 = |seed: u64, len: usize| {
        let mut p = bytes(seed, len);
        p[0] = 0x45;
        p
    };
    let ip6 = |seed: u64, len: usize| {
        let mut p = bytes(seed, len);
        p[0] = 0x60;
        p
    };
    let k2 = bytes(2, 36);
    let k3 = bytes(3, 44);
    // the same root key, salt and packet under Magma-MGM (its 4-byte salt)
    cases.push(Case { kuz: false, keymat: unhex(&format!("{}{}", root1, "7b67e6f2")), spi: 0x5146536b, esn: false, seq: 1, iv: 0, payload: kernel.payload.clone(), nh: 4 });
    cases.push(Case { kuz: false, keymat: k2.clone(), spi: 0x0000c001, esn: false, seq: 7, iv: 0x0102_0304_0500_0007, payload: ip4(11, 21), nh: 4 });
    cases.push(Case { kuz: false, keymat: k2.clone(), spi: 0x0000c001, esn: true, seq: 0x1234_5678, iv: 0x00ab_cdef_0112_3456, payload: ip6(12, 1400), nh: 41 });
    cases.push(Case { kuz: true, keymat: k3.clone(), spi: 0xdeadbeef, esn: true, seq: 0x8000_0001, iv: 0xff00_0100_0280_0001, payload: ip4(13, 600), nh: 4 });
    cases.push(Case { kuz: true, keymat: k3, spi: 0xdeadbeef, esn: false, seq: 3, iv: 0x0000_0000_01ff_ffff, payload: ip6(14, 40), nh: 41 });
    for c in &cases {
        let (p, mk) = packet(c);
        println!(
            "{{\"transform\": \"{}\", \"keymat\": \"{}\", \"spi\": \"{:08x}\", \"esn\": {}, \"seq\": {}, \"iv\": \"{:016x}\", \"message_key\": \"{}\", \"payload\": \"{}\", \"next_header\": {}, \"packet\": \"{}\"}}",
            if c.kuz { "kuznyechik-mgm-ktree" } else { "magma-mgm-ktree" },
            hex(&c.keymat), c.spi, c.esn, c.seq, c.iv, hex(&mk), hex(&c.payload), c.nh, hex(&p)
        );
    }
}
