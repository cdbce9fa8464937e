#!/usr/bin/env python3
"""Measures the IKE datagrams crossing a device, both ways: how many, the
largest (the IPv4 or IPv6 datagram, headers included, however IP
fragmented it) and how many IP fragments of UDP passed (a datagram past the
path's MTU, split by IP: what RFC 7383's IKE fragmentation avoids). IKE: UDP from or to port 500,
or on port 4500 behind the non-ESP marker (four zero octets).

Run as root inside the namespace of DEV:
  ike_sizes.py --dev VETH --ready FILE --stop FILE --seconds 30
It creates the --ready file once its capture socket is bound, captures
until the --stop file exists or --seconds pass, then prints
`ike N largest L ipfrags F`.
"""
import argparse, os, socket, struct, time

ETH_P_ALL, ETH_P_IP, ETH_P_IPV6 = 0x0003, 0x0800, 0x86DD  # outgoing: ETH_P_ALL sockets only


def is_ike(pkt, ihl):
    sport, dport = struct.unpack("!HH", pkt[ihl:ihl + 4])
    payload = pkt[ihl + 8:]
    if 500 in (sport, dport):
        return True
    return 4500 in (sport, dport) and len(payload) > 4 and payload[:4] == b"\0\0\0\0"


def udp_of(proto, pkt):
    """UDP in an IPv4 or IPv6 packet: (where its header starts, the IP
    header's length without a fragment header, 1 when IP fragmented it, 1
    for a fragment after the first), or None for anything else."""
    if proto == ETH_P_IP and len(pkt) >= 20 and pkt[0] >> 4 == 4 and pkt[9] == 17:
        frag = struct.unpack("!H", pkt[6:8])[0]
        ihl = (pkt[0] & 15) * 4
        return ihl, ihl, int(frag & 0x3FFF != 0), int(frag & 0x1FFF != 0)
    if proto == ETH_P_IPV6 and len(pkt) >= 40 and pkt[0] >> 4 == 6:
        if pkt[6] == 17:
            return 40, 40, 0, 0
        if pkt[6] == 44 and len(pkt) >= 48 and pkt[40] == 17:  # a Fragment header
            off = struct.unpack("!H", pkt[42:44])[0] >> 3
            return 48, 40, 1, int(off != 0)
    return None


def measure(dev, ready, stop, seconds):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
    s.bind((dev, ETH_P_ALL))
    open(ready, "w").close()
    s.settimeout(0.1)
    ike = largest = ipfrags = 0
    end = time.time() + seconds
    while time.time() < end and not os.path.exists(stop):
        try:
            pkt, where = s.recvfrom(65535)
        except socket.timeout:
            continue
        udp = udp_of(where[1], pkt)
        if udp is None:
            continue
        at, ip_len, fragmented, later = udp
        ipfrags += fragmented
        if later or len(pkt) < at + 8 or not is_ike(pkt, at):
            continue  # a later fragment: no UDP header
        ike += 1  # its datagram's size by the UDP Length: the first fragment's too
        largest = max(largest, ip_len + struct.unpack("!H", pkt[at + 4:at + 6])[0])
    s.close()
    print(f"ike {ike} largest {largest} ipfrags {ipfrags}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--stop", required=True)
    ap.add_argument("--seconds", type=float, default=30)
    a = ap.parse_args()
    measure(a.dev, a.ready, a.stop, a.seconds)


if __name__ == "__main__":
    main()
