"""Raw HTTP requests to the command's services (tests/test_ocsp_cli.sh,
tests/test_ts_cli.sh): the cases of tests/support/http_edges.txt, bytes
no HTTP library would send (a header without a colon, a Content-Length
that lies, a request line past its bound), each on its own connection.

    python3 http_raw.py PORT BODY-FILE CONTENT-TYPE COLUMN

COLUMN: 1 the OCSP responder's answers, 2 the TSA's. Prints each case
whose statuses differ ("NAME: STATUSES, not WANTED"), then "N cases as
wanted" (N all of them when none differ)."""
import os
import re
import socket
import sys

from gostx_test_time import bound


def statuses(port, data, shut=False):
    s = socket.create_connection(("127.0.0.1", port), timeout=bound(10))
    s.sendall(data)
    if shut:
        s.shutdown(socket.SHUT_WR)
    got, late = b"", ""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            got += b
    except socket.timeout:
        late = " (still open)"
    except OSError as e:
        late = " (%s)" % e.strerror
    s.close()
    codes = re.findall(rb"HTTP/1\.1 (\d{3}) ", got)
    return " ".join(c.decode() for c in codes) + late or "closed"


def main():
    port, body, ctype = int(sys.argv[1]), open(sys.argv[2], "rb").read(), sys.argv[3].encode()
    column = int(sys.argv[4])

    def post(data=body, target=b"/", fields=b"", length=None, version=b"1.1"):
        """A POST closing its connection (fields: more header lines)"""
        n = len(data) if length is None else length
        return (b"POST " + target + b" HTTP/" + version + b"\r\nHost: x\r\nConnection: close\r\n"
                b"Content-Type: " + ctype + b"\r\n" + fields + b"Content-Length: %d\r\n\r\n" % n + data)

    def head(n):
        """An empty POST whose head, through its blank line, is n bytes"""
        return post(b"", fields=b"X: " + b"a" * (n - len(post(b"")) - 5) + b"\r\n")

    def sized(total):
        """A POST of zeros that is total bytes, head and body"""
        n = total - len(post(b""))
        while len(post(b"", length=n)) + n != total:
            n -= 1
        return post(b"\0" * n)

    def cut(data):
        """data, then the connection half-closed: a body cut short"""
        return (data, True)

    names = {"post": post, "head": head, "sized": sized, "cut": cut, "body": body, "ctype": ctype}
    cases = os.path.join(os.path.dirname(os.path.abspath(__file__)), "http_edges.txt")
    n = good = 0
    for line in open(cases):
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" :: ")]
        data = eval(parts[1], names)
        got = statuses(port, *data) if isinstance(data, tuple) else statuses(port, data)
        n += 1
        if got == parts[1 + column]:
            good += 1
        else:
            print("%s: %s, not %s" % (parts[0], got, parts[1 + column]))
    print("%d cases as wanted" % good if good == n else "%d of %d cases as wanted" % (good, n))


main()
