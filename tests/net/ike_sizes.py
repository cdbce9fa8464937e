#!/usr/bin/env python3
"""Measures the IKE datagrams crossing a device, both ways: how many, the
largest (the IPv4 datagram, headers included, however IP fragmented it)
and how many IPv4 fragments of UDP passed (a datagram past the path's
MTU, split by IP: what RFC 7383's IKE fragmentation avoids). IKE: UDP from or to port 500,
or on port 4500 behind the non-ESP marker (four zero octets).

Run as root inside the namespace of DEV:
  ike_sizes.py --dev VETH --ready FILE --stop FILE --seconds 30
It creates the --ready file once its capture socket is bound, captures
until the --stop file exists or --seconds pass, then prints
`ike N largest L ipfrags F`.
"""
import argparse, os, socket, struct, time

ETH_P_ALL, ETH_P_IP = 0x0003, 0x0800  # outgoing packets reach only ETH_P_ALL sockets


def is_ike(pkt, ihl):
    sport, dport = struct.unpack("!HH", pkt[ihl:ihl + 4])
    payload = pkt[ihl + 8:]
    if 500 in (sport, dport):
        return True
    return 4500 in (sport, dport) and len(payload) > 4 and payload[:4] == b"\0\0\0\0"


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
        if where[1] != ETH_P_IP or len(pkt) < 20 or pkt[0] >> 4 != 4 or pkt[9] != 17:
            continue
        frag = struct.unpack("!H", pkt[6:8])[0]
        ipfrags += (frag & 0x3FFF) != 0  # More Fragments or an offset
        ihl = (pkt[0] & 15) * 4
        if frag & 0x1FFF or len(pkt) < ihl + 8 or not is_ike(pkt, ihl):
            continue  # a later fragment: no UDP header
        ike += 1  # its datagram's size by the UDP Length: the first fragment's too
        largest = max(largest, ihl + struct.unpack("!H", pkt[ihl + 4:ihl + 6])[0])
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
