// check-manifests.mjs: deploy/kubernetes validated offline.
//
//   node check-manifests.mjs DIR            validate DIR's manifests
//   node check-manifests.mjs DIR --self-test  also break them in each way the
//                                            policy forbids; fail unless every
//                                            break is caught
//
// Each object is checked against the Kubernetes API schema (kubernetes-models)
// or the Prometheus Operator's (ServiceMonitor), then against the least
// privilege the exporter needs: no privileged container, no added
// capability (every one dropped), no privilege escalation, no host path,
// IPC or ports beyond the metrics port, hostPID off, non-root with a
// read-only root file system, requests and limits, probes, hostNetwork on
// (device events and netdev counters live in the host's network namespace).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { DaemonSet } from "kubernetes-models/apps/v1/DaemonSet";
import { Service } from "kubernetes-models/v1/Service";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor";

const models = {
  "apps/v1/DaemonSet": DaemonSet,
  "v1/Service": Service,
  "v1/Namespace": Namespace,
  "monitoring.coreos.com/v1/ServiceMonitor": ServiceMonitor,
};

function load(dir) {
  const objects = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".yaml")).sort()) {
    if (name === "kustomization.yaml")
      continue;
    for (const doc of parseAllDocuments(readFileSync(join(dir, name), "utf8"))) {
      if (doc.errors.length > 0)
        throw new Error(`${name}: ${doc.errors[0].message}`);
      objects.push({ file: name, obj: doc.toJS() });
    }
  }
  return objects;
}

function schemaErrors({ file, obj }) {
  const Model = models[`${obj.apiVersion}/${obj.kind}`];
  if (!Model)
    return [`${file}: ${obj.apiVersion} ${obj.kind} is not a kind this deployment should have`];
  try {
    new Model(obj).validate();
    return [];
  } catch (e) {
    return [`${file}: ${obj.kind} does not validate: ${e.message}`];
  }
}

function policyErrors(objects) {
  const errors = [];
  const err = (m) => errors.push(m);
  const ds = objects.map((o) => o.obj).filter((o) => o.kind === "DaemonSet");
  if (ds.length !== 1)
    return [`want exactly one DaemonSet, found ${ds.length}`];
  const pod = ds[0].spec.template.spec;
  if (pod.hostNetwork !== true)
    err("hostNetwork must be true: device events and netdev counters are in the host's namespace");
  if (pod.hostPID)
    err("hostPID must stay off by default (process attribution is opt-in)");
  if (pod.hostIPC)
    err("hostIPC is not needed");
  if (pod.automountServiceAccountToken !== false)
    err("the exporter calls no Kubernetes API: automountServiceAccountToken must be false");
  if (pod.securityContext?.runAsNonRoot !== true)
    err("the pod must set runAsNonRoot");
  for (const v of pod.volumes ?? []) {
    if (v.hostPath)
      err(`volume ${v.name}: no host path is needed (sysfs and /proc come with the container)`);
  }
  if ((pod.initContainers ?? []).length > 0 || (pod.ephemeralContainers ?? []).length > 0)
    err("no init or ephemeral containers are needed");
  const containers = pod.containers ?? [];
  if (containers.length !== 1)
    err(`want one container, found ${containers.length}`);
  for (const c of containers) {
    const sc = c.securityContext ?? {};
    const caps = sc.capabilities ?? {};
    if (sc.privileged !== false)
      err(`${c.name}: privileged must be false`);
    if (sc.allowPrivilegeEscalation !== false)
      err(`${c.name}: allowPrivilegeEscalation must be false`);
    if (sc.readOnlyRootFilesystem !== true)
      err(`${c.name}: readOnlyRootFilesystem must be true`);
    if ((caps.add ?? []).length > 0)
      err(`${c.name}: adds capabilities ${caps.add.join(", ")}; reading needs none`);
    if (!(caps.drop ?? []).includes("ALL"))
      err(`${c.name}: must drop ALL capabilities`);
    if (sc.runAsUser === 0 || pod.securityContext?.runAsUser === 0)
      err(`${c.name}: runs as root`);
    for (const k of ["requests", "limits"])
      for (const r of ["cpu", "memory"])
        if (!c.resources?.[k]?.[r])
          err(`${c.name}: resources.${k}.${r} missing`);
    if (!c.livenessProbe?.httpGet || !c.readinessProbe?.httpGet)
      err(`${c.name}: liveness and readiness probes (httpGet) are required`);
    const ports = c.ports ?? [];
    if (ports.length !== 1 || ports[0].containerPort !== 9315 || ports[0].hostPort !== undefined && ports[0].hostPort !== 9315)
      err(`${c.name}: one port, the metrics port 9315`);
    for (const m of c.volumeMounts ?? [])
      if (!m.readOnly)
        err(`${c.name}: mount ${m.mountPath} must be read-only`);
  }
  const ann = ds[0].spec.template.metadata?.annotations ?? {};
  if (ann["prometheus.io/scrape"] !== "true" || ann["prometheus.io/port"] !== "9315")
    err("scrape annotations (prometheus.io/scrape, prometheus.io/port) missing");
  if (!objects.some((o) => o.obj.kind === "ServiceMonitor"))
    err("no ServiceMonitor");
  return errors;
}

function check(objects) {
  return objects.flatMap(schemaErrors).concat(policyErrors(objects));
}

// Each way of breaking the DaemonSet that the policy must catch.
const breaks = {
  "privileged": (p) => { p.containers[0].securityContext.privileged = true; },
  "NET_ADMIN": (p) => { p.containers[0].securityContext.capabilities.add = ["NET_ADMIN"]; },
  "SYS_ADMIN, capabilities kept": (p) => {
    p.containers[0].securityContext.capabilities = { add: ["SYS_ADMIN"] };
  },
  "privilege escalation": (p) => { delete p.containers[0].securityContext.allowPrivilegeEscalation; },
  "writable root": (p) => { p.containers[0].securityContext.readOnlyRootFilesystem = false; },
  "root": (p) => { p.securityContext.runAsNonRoot = false; p.securityContext.runAsUser = 0; },
  "host path": (p) => {
    p.volumes = [{ name: "sys", hostPath: { path: "/sys" } }];
    p.containers[0].volumeMounts = [{ name: "sys", mountPath: "/host/sys", readOnly: true }];
  },
  "hostPID on": (p) => { p.hostPID = true; },
  "hostIPC": (p) => { p.hostIPC = true; },
  "no hostNetwork": (p) => { p.hostNetwork = false; },
  "no limits": (p) => { delete p.containers[0].resources.limits; },
  "no probes": (p) => { delete p.containers[0].readinessProbe; },
  "service account token": (p) => { delete p.automountServiceAccountToken; },
  "schema: bad field type": (p) => { p.containers[0].ports[0].containerPort = "metrics"; },
};

const dir = process.argv[2];
const objects = load(dir);
const errors = check(objects);
for (const e of errors)
  console.log(`not ok - ${e}`);
console.log(`${errors.length === 0 ? "ok" : "not ok"} - ${objects.length} objects validate and keep to least privilege`);
let failed = errors.length > 0;
if (process.argv.includes("--self-test")) {
  for (const [name, mutate] of Object.entries(breaks)) {
    const copy = structuredClone(objects);
    mutate(copy.find((o) => o.obj.kind === "DaemonSet").obj.spec.template.spec);
    const caught = check(copy);
    console.log(`${caught.length > 0 ? "ok" : "not ok"} - a DaemonSet with ${name} is refused` +
                (caught.length > 0 ? ` (${caught[0]})` : ""));
    failed ||= caught.length === 0;
  }
}
process.exit(failed ? 1 : 0);
