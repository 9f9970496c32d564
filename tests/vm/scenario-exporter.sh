#!/bin/bash
# The Prometheus exporter on a real kernel RDMA stack: `rdmatop-cli serve`
# runs as an unprivileged user, a real Prometheus server (Debian's) scrapes
# it every second during ib_write_bw from rxe0 to rxe1, and Debian's
# prometheus-node-exporter with its infiniband collector runs beside it.
# Checked: through Prometheus's HTTP API, rate() of the transmit bytes is
# non-zero on the busy port and zero on the idle one; the raw counters equal
# `rdma -j statistic show`, scraped directly and through Prometheus; promtool
# accepts the live output; every value both exporters export agrees; what
# node_exporter lacks for Soft-RoCE is written to node-exporter-gaps.md.
. "$RDMATOP_VM_DIR/guest-lib.sh"
vm_init
O=$VM_OUT
EXP=127.0.0.1:9315
NODE=127.0.0.1:9100
PROM=127.0.0.1:9090

command -v prometheus >/dev/null || vm_die "prometheus is not installed: run tests/deps.sh test"
command -v prometheus-node-exporter >/dev/null ||
  vm_die "prometheus-node-exporter is not installed: run tests/deps.sh test"

sysctl -qw net.ipv6.conf.default.disable_ipv6=1
vm_rxe_pair rxe0 v0 10.220.0.1 rxe1 v1 10.220.0.2
vm_dummy_rxe rxe2 d2 10.210.2.1

# Both exporters as the unprivileged user, as the DaemonSet runs them.
vm_bg "${VM_AS_USER[@]}" "$VM_CLI" serve --listen "$EXP" --interval 1 >"$O/serve.log" 2>&1
vm_bg "${VM_AS_USER[@]}" prometheus-node-exporter --web.listen-address="$NODE" \
  --collector.disable-defaults --collector.infiniband --log.level=debug \
  >"$O/node-exporter.log" 2>&1
cat >/tmp/prometheus.yml <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: rdmatop
    static_configs: [{targets: ['$EXP']}]
  - job_name: node
    static_configs: [{targets: ['$NODE']}]
EOF
cp /tmp/prometheus.yml "$O/"
vm_bg "${VM_AS_USER[@]}" prometheus --config.file=/tmp/prometheus.yml \
  --storage.tsdb.path=/tmp/prometheus-data --web.listen-address="$PROM" --log.level=warn \
  >"$O/prometheus.log" 2>&1
vm_wait_for "the exporter" 30 curl -sf -o /dev/null "http://$EXP/readyz"
vm_wait_for "node_exporter" 60 curl -sf -o /dev/null "http://$NODE/metrics"
vm_wait_for "Prometheus" 120 curl -sf -o /dev/null "http://$PROM/-/ready"
vm_log "exporters and Prometheus up"

query () {
  curl -sfG "http://$PROM/api/v1/query" --data-urlencode "query=$2" >"$O/$1.json" ||
    vm_not_ok "Prometheus query $2"
}

vm_perftest write rxe1 rxe0 10.220.0.2 300
vm_log "traffic running"
# Long enough for rate() over 10 s of 1 s scrapes (TCG is slow: say 20 s).
sleep 20
query rate-tx 'rate(rdmatop_port_transmit_bytes_total[10s])'
query rate-tx-packets 'rate(rdmatop_port_transmit_packets_total[10s])'
query up 'up'
vm_log "queried rates"
kill "$VM_CLIENT_PID" "$VM_SERVER_PID" 2>/dev/null
vm_wait_for "perftest to end" 30 sh -c '! rdma res show qp 2>/dev/null | grep -q "type RC"'

# Idle now: the counters hold still.  The kernel's view, then the
# exporter's after at least one pass and one Prometheus scrape, then the
# kernel's again (unchanged, or the comparison means nothing).
sleep 2
rdma -j statistic show >"$O/stat-before.json"
sleep 3
curl -sf -H 'Accept: text/plain;version=0.0.4' "http://$EXP/metrics" >"$O/rdmatop.prom" ||
  vm_not_ok "scrape the exporter"
curl -sf -H 'Accept: application/openmetrics-text;version=1.0.0' "http://$EXP/metrics" \
  >"$O/rdmatop.om" || vm_not_ok "scrape the exporter (OpenMetrics)"
curl -sf "http://$NODE/metrics" >"$O/node.prom" || vm_not_ok "scrape node_exporter"
query raw 'rdmatop_port_raw_total'
query node-ib '{__name__=~"node_infiniband_.*"}'
query rdmatop-all '{job="rdmatop"}'
rdma -j statistic show >"$O/stat-after.json"
vm_check "promtool check metrics accepts the live output" \
  sh -c "promtool check metrics <'$O/rdmatop.prom' >'$O/promtool.out' 2>&1"

if python3 - "$O" >"$O/checks.out" 2>&1 <<'EOF'
import json, os, re, sys

out = sys.argv[1]
ok = True

def check(desc, cond, detail=""):
    global ok
    print(("ok - " if cond else "not ok - ") + desc + ("" if cond else ": " + str(detail)[:600]))
    ok &= bool(cond)

def load(name):
    with open(os.path.join(out, name)) as f:
        return json.load(f)

def result(name):
    doc = load(name + ".json")
    assert doc["status"] == "success", doc
    return doc["data"]["result"]

def by_device(rows, **match):
    return {(r["metric"].get("device"), r["metric"].get("port")): float(r["value"][1])
            for r in rows if all(r["metric"].get(k) == v for k, v in match.items())}

up = {r["metric"]["job"]: r["value"][1] for r in result("up")}
check("Prometheus scrapes both exporters (up == 1)", up == {"rdmatop": "1", "node": "1"}, up)
tx = by_device(result("rate-tx"))
check("rate(tx bytes) of the busy port rxe0/1 is non-zero", tx.get(("rxe0", "1"), 0) > 0, tx)
check("rate(tx bytes) of the idle port rxe2/1 is zero", tx.get(("rxe2", "1")) == 0, tx)
txp = by_device(result("rate-tx-packets"))
check("rate(tx packets) busy non-zero, idle zero",
      txp.get(("rxe0", "1"), 0) > 0 and txp.get(("rxe2", "1")) == 0, txp)

# Raw counters against the kernel, scraped directly and through Prometheus.
def parse_text(path):
    samples = {}
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line.rstrip("\n"))
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        samples.setdefault(m.group(1), []).append((labels, float(m.group(4))))
    return samples

before, after = load("stat-before.json"), load("stat-after.json")
def kernel(stat):
    return {(e["ifname"], str(e["port"]), k): v for e in stat for k, v in e.items()
            if isinstance(v, int) and k not in ("ifindex", "port")}
kb, ka = kernel(before), kernel(after)
check("the kernel's counters held still while idle", kb == ka,
      [(k, kb.get(k), ka.get(k)) for k in set(kb) | set(ka) if kb.get(k) != ka.get(k)][:5])
mine = parse_text(os.path.join(out, "rdmatop.prom"))
raw = {(l["device"], l["port"], l["counter"]): v
       for l, v in mine.get("rdmatop_port_raw_total", []) if l["source"] == "netlink"}
check("every `rdma statistic` counter is exported", set(raw) == set(ka),
      sorted(set(raw) ^ set(ka))[:5])
diff = [(k, raw.get(k), v) for k, v in ka.items() if raw.get(k) != v]
check("scraped raw counters equal `rdma -j statistic show` (%d values)" % len(ka), not diff, diff[:5])
prom_raw = {(r["metric"]["device"], r["metric"]["port"], r["metric"]["counter"]): float(r["value"][1])
            for r in result("raw") if r["metric"]["source"] == "netlink"}
diff = [(k, prom_raw.get(k), v) for k, v in ka.items() if prom_raw.get(k) != v]
check("raw counters in Prometheus equal `rdma -j statistic show`", not diff, diff[:5])

# node_exporter beside it: every value both export agrees.
node = parse_text(os.path.join(out, "node.prom"))
state_pairs = {
    "node_infiniband_state_id": "rdmatop_port_state",
    "node_infiniband_physical_state_id": "rdmatop_port_physical_state",
    "node_infiniband_rate_bytes_per_second": "rdmatop_port_link_rate_bytes_per_second",
}
# node_exporter's counter names -> the PMA counter in counters/ (and its scale).
pma = {
    "port_data_received_bytes_total": ("port_rcv_data", 4),
    "port_data_transmitted_bytes_total": ("port_xmit_data", 4),
    "port_packets_received_total": ("port_rcv_packets", 1),
    "port_packets_transmitted_total": ("port_xmit_packets", 1),
    "port_errors_received_total": ("port_rcv_errors", 1),
    "port_discards_transmitted_total": ("port_xmit_discards", 1),
    "port_constraint_errors_received_total": ("port_rcv_constraint_errors", 1),
    "port_constraint_errors_transmitted_total": ("port_xmit_constraint_errors", 1),
    "port_receive_remote_physical_errors_total": ("port_rcv_remote_physical_errors", 1),
    "port_receive_switch_relay_errors_total": ("port_rcv_switch_relay_errors", 1),
    "port_transmit_wait_total": ("port_xmit_wait", 1),
    "link_downed_total": ("link_downed", 1),
    "link_error_recovery_total": ("link_error_recovery", 1),
    "local_link_integrity_errors_total": ("local_link_integrity_errors", 1),
    "excessive_buffer_overrun_errors_total": ("excessive_buffer_overrun_errors", 1),
    "symbol_error_total": ("symbol_error", 1),
    "vl15_dropped_total": ("VL15_dropped", 1),
    "multicast_packets_received_total": ("multicast_rcv_packets", 1),
    "multicast_packets_transmitted_total": ("multicast_xmit_packets", 1),
    "unicast_packets_received_total": ("unicast_rcv_packets", 1),
    "unicast_packets_transmitted_total": ("unicast_xmit_packets", 1),
}
def mine_port(name):
    return {(l["device"], l["port"]): v for l, v in mine.get(name, [])}
pma_mine = {(l["device"], l["port"], l["counter"]): v
            for l, v in mine.get("rdmatop_port_raw_total", []) if l["source"] == "sysfs"}
compared, disagree, unknown = 0, [], []
node_names = sorted(n for n in node if n.startswith("node_infiniband_"))
for name in node_names:
    for labels, value in node[name]:
        if "port" not in labels:
            continue
        key = (labels["device"], labels["port"])
        if name in state_pairs:
            got = mine_port(state_pairs[name]).get(key)
        elif name[len("node_infiniband_"):] in pma:
            counter, scale = pma[name[len("node_infiniband_"):]]
            raw_value = pma_mine.get(key + (counter,))
            got = None if raw_value is None else raw_value * scale
        else:
            unknown.append(name)
            continue
        compared += 1
        if got != value:
            disagree.append((name, key, value, got))
node_ok = any(l.get("collector") == "infiniband" and v == 1
              for l, v in node.get("node_scrape_collector_success", []))
if node_ok:
    check("node_exporter and rdmatop agree on every value both export (%d compared)" % compared,
          compared > 0 and not disagree, disagree[:5])
else:
    # node_exporter 1.5 gives up on a device without a PMA counters/
    # directory, which Soft-RoCE never has: nothing to compare, and that
    # is the finding (the table below).
    check("node_exporter's infiniband collector exports nothing for Soft-RoCE",
          not node_names, node_names)
check("every node_exporter port metric is known to the comparison", not unknown, sorted(set(unknown)))

# What node_exporter lacks for Soft-RoCE: a table for docs/exporter.md.
busy = ("rxe0", "1")
have_node = {n for n in node_names}
rows = []
for name, what in [
        ("rdmatop_port_transmit_bytes_total", "bytes sent (Soft-RoCE: from the netdev)"),
        ("rdmatop_port_receive_bytes_total", "bytes received"),
        ("rdmatop_port_transmit_packets_total", "packets sent (sent_pkts)"),
        ("rdmatop_port_receive_packets_total", "packets received (rcvd_pkts)"),
        ("rdmatop_port_retransmits_total", "retransmits (completer_retry_err)"),
        ("rdmatop_port_errors_total", "errors by class"),
        ("rdmatop_port_dropped_packets_total", "drops"),
        ("rdmatop_port_raw_total", "every hw counter of `rdma statistic`"),
        ("rdmatop_health_events_total", "health events by kind"),
        ("rdmatop_port_state", "port state"),
        ("rdmatop_port_link_rate_bytes_per_second", "link rate")]:
    ours = mine.get(name, [])
    n_rxe0 = sum(1 for l, _ in ours if (l.get("device"), l.get("port")) == busy) if name != "rdmatop_health_events_total" else len(ours)
    equiv = {"rdmatop_port_state": "node_infiniband_state_id",
             "rdmatop_port_link_rate_bytes_per_second": "node_infiniband_rate_bytes_per_second",
             "rdmatop_port_transmit_bytes_total": "node_infiniband_port_data_transmitted_bytes_total",
             "rdmatop_port_receive_bytes_total": "node_infiniband_port_data_received_bytes_total",
             "rdmatop_port_transmit_packets_total": "node_infiniband_port_packets_transmitted_total",
             "rdmatop_port_receive_packets_total": "node_infiniband_port_packets_received_total",
             }.get(name)
    node_has = bool(equiv) and any((l.get("device"), l.get("port")) == busy
                                   for l, _ in node.get(equiv, []))
    rows.append("| %s | `%s` | %d | %s |" % (what, name, n_rxe0,
                ("`%s`" % equiv) if node_has else "missing"))
with open(os.path.join(out, "node-exporter-gaps.md"), "w") as f:
    f.write("| what | rdmatop | series for rxe0/1 | node_exporter 1.5 infiniband |\n|---|---|---|---|\n")
    f.write("\n".join(rows) + "\n")
    f.write("\nnode_exporter infiniband collector success: %s; its families: %s\n"
            % (int(node_ok), ", ".join(node_names) or "none"))
print(open(os.path.join(out, "node-exporter-gaps.md")).read())
sys.exit(0 if ok else 1)
EOF
then
  vm_ok "Prometheus, rdma and node_exporter checks (see checks.out)"
else
  vm_not_ok "Prometheus, rdma and node_exporter checks: $(grep -v '^ok' "$O/checks.out" | head -c 1500)"
fi
cat "$O/checks.out"
vm_finish
