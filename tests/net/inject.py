#!/usr/bin/env python3
"""Captures ESP-in-UDP packets leaving this namespace and sends back bad
copies of them: exact replays, sequence-number bit flips, truncations and
unknown SPIs. Bounded: at most --count captures and --seconds of capture.
Prints the numbers sent of each kind as `kind count` lines.

Run as root inside the sending tunnel's namespace:
  inject.py --dev VETH --port 4500 --to ADDR --count 20
With --ready FILE it creates FILE once its capture socket is bound, so that
the caller can start the traffic after that. With --save FILE it only
captures (into FILE); with --replay FILE it only
sends FILE's packets again, unchanged (a replay across a restart); with
--reorder FILE it sends FILE's packets (captured while the receiver was
down, so new to it) out of order, last first and odd before even, then
every one again in that order: each is to be delivered once, and the second
copies dropped as replays. With --gso FILE it sends FILE's packets (all of
one size but the last, which may be shorter) as one UDP GSO send
(UDP_SEGMENT), so that the receiver gets them as one coalesced buffer, with
a bit of the ICV of the one at index --corrupt flipped.
"""
import argparse, os, socket, struct, sys, time
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gostx_test_time import bound  # noqa: E402 (the waits' scale, also when run by hand)

ETH_P_IP = 0x0800
SOL_UDP, UDP_SEGMENT = 17, 103  # linux/udp.h; Python has no names for them
ETH_P_ALL = 0x0003  # outgoing packets reach only ETH_P_ALL sockets


SOL_PACKET, PACKET_VNET_HDR = 263, 15
VNET_HDR = struct.Struct("=BBHHHH")  # struct virtio_net_hdr: flags, gso_type, hdr_len, gso_size, ...


def capture(dev, port, count, seconds, ready):
    # A UDP GSO send (gostx tunnel's trains of datagrams) passes the veth
    # whole: the virtio header's gso_size says where its datagrams end
    # (SOCK_RAW only: the Ethernet header, 14 bytes on a veth, comes too).
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    s.bind((dev, ETH_P_ALL))
    if ready:  # the caller starts its traffic only now (a loaded machine starts us late)
        open(ready, "w").close()
    s.settimeout(0.2)
    got, end = [], time.time() + seconds
    while len(got) < count and time.time() < end:
        try:
            pkt, where = s.recvfrom(65535)
        except socket.timeout:
            continue
        gso_size = VNET_HDR.unpack_from(pkt)[3]
        pkt = pkt[VNET_HDR.size + 14:]
        if where[1] != ETH_P_IP or where[2] != socket.PACKET_OUTGOING:  # only what we sent
            continue
        if len(pkt) < 28 or pkt[0] >> 4 != 4 or pkt[9] != 17:
            continue
        ihl = (pkt[0] & 15) * 4
        dport = struct.unpack("!H", pkt[ihl + 2:ihl + 4])[0]
        payload = pkt[ihl + 8:]
        step = gso_size if gso_size else len(payload)
        for off in range(0, len(payload), step):
            p = payload[off:off + step]
            if dport == port and len(p) > 8 and p[:4] != b"\0\0\0\0" and len(got) < count:
                got.append(bytes(p))
    s.close()
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", required=True)
    ap.add_argument("--port", type=int, default=4500)
    ap.add_argument("--to", required=True)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--ready", help="create this file once capturing")
    ap.add_argument("--save")
    ap.add_argument("--replay")
    ap.add_argument("--reorder")
    ap.add_argument("--gso")
    ap.add_argument("--corrupt", type=int, default=-1)
    a = ap.parse_args()
    if a.replay or a.reorder or a.gso:
        with open(a.replay or a.reorder or a.gso, "rb") as f:
            data = f.read()
        pkts, i = [], 0
        while i < len(data):
            (ln,) = struct.unpack("!H", data[i:i + 2])
            pkts.append(data[i + 2:i + 2 + ln])
            i += 2 + ln
        out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        if a.gso:
            seg = len(pkts[0])
            if any(len(p) != seg for p in pkts[:-1]) or len(pkts[-1]) > seg:
                print("--gso: the packets are not of one size (the last may be shorter)", file=sys.stderr)
                return 1
            if 0 <= a.corrupt < len(pkts):
                f = bytearray(pkts[a.corrupt])
                f[-1] ^= 0x01  # the ICV's last byte
                pkts[a.corrupt] = bytes(f)
            out.setsockopt(SOL_UDP, UDP_SEGMENT, seg)
            out.sendto(b"".join(pkts), (a.to, a.port))
            print("gso", len(pkts), "segment", seg, "last", len(pkts[-1]))
            return 0
        if a.replay:
            for p in pkts:
                out.sendto(p, (a.to, a.port))
            print("replay", len(pkts))
            return 0
        idx = list(range(len(pkts)))[::-1]
        order = idx[0::2] + idx[1::2]  # e.g. 9 7 5 3 1 8 6 4 2 0
        for k in order:
            out.sendto(pkts[k], (a.to, a.port))
            time.sleep(0.01)
        time.sleep(bound(0.2))  # the first copies opened before the second arrive
        for k in order:
            out.sendto(pkts[k], (a.to, a.port))
        print("reordered", len(pkts))
        print("replay", len(pkts))
        return 0
    caps = capture(a.dev, a.port, a.count, a.seconds, a.ready)
    if a.save:
        with open(a.save, "wb") as f:
            for p in caps:
                f.write(struct.pack("!H", len(p)) + p)
        print("captured", len(caps))
        return 0 if len(caps) == a.count else 1
    if len(caps) < a.count:
        print(f"captured only {len(caps)} of {a.count} packets", file=sys.stderr)
        return 1
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dst = (a.to, a.port)
    sent = {"replay": 0, "flip": 0, "truncated": 0, "spi": 0}
    time.sleep(bound(0.5))  # the originals delivered first
    for p in caps:
        out.sendto(p, dst)  # exact replay
        sent["replay"] += 1
        f = bytearray(p)
        f[4] ^= 0x80  # SN + 2^31: new to the window, so it reaches the ICV check
        out.sendto(bytes(f), dst)
        sent["flip"] += 1
    for i, p in enumerate(caps):
        cut = 1 + i % 3  # the body no longer a multiple of 4 bytes
        out.sendto(p[:len(p) - cut], dst)
        out.sendto(p[:2 + i % 6], dst)  # shorter than an ESP header
        sent["truncated"] += 2
    for p in caps[:10]:
        f = bytearray(p)
        f[0] ^= 0x40
        out.sendto(bytes(f), dst)
        sent["spi"] += 1
    for k, v in sent.items():
        print(k, v)
    return 0


if __name__ == "__main__":
    sys.exit(main())
