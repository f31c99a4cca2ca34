// Checks deploy/ before anyone applies it: each manifest against the published schema of its kind (Kubernetes
// OpenAPI via kubernetes-models, KEDA's CRD via @kubernetes-models/keda, prometheus-adapter's config types),
// every PromQL expression with Prometheus's own grammar, every metric it names against a real /metrics
// scrape, and the scaling settings against the ones ReplicaSimulatorTest proves converge.
//
// usage: node deploy/validate/validate.mjs --metrics SCRAPE [DIR]   (DIR defaults to deploy/; exit 1 on any error)
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import Ajv from "ajv";
import { parser as promql } from "@prometheus-io/lezer-promql";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const metricsAt = args.indexOf("--metrics");
if (metricsAt < 0 || !args[metricsAt + 1]) {
  console.error("usage: validate.mjs --metrics SCRAPE [DIR]");
  process.exit(2);
}
const scrape = readFileSync(args[metricsAt + 1], "utf8");
const dir = args.filter((_, i) => i !== metricsAt && i !== metricsAt + 1)[0] ?? dirname(here);

// The HPA the simulation runs (HorizontalScaler.Params.defaults and its rate policies; ReplicaSimulatorTest).
const SCALING = {
  metric: "puma_plus_utilization", target: 0.7, minReplicas: 2, maxReplicas: 30,
  behavior: {
    scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [
      { type: "Pods", value: 4, periodSeconds: 15 }, { type: "Percent", value: 100, periodSeconds: 15 }] },
    scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: "Max", policies: [
      { type: "Percent", value: 100, periodSeconds: 15 }] },
  },
};
const KINDS = {
  "v1/ConfigMap": ConfigMap,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "keda.sh/v1alpha1/ScaledObject": ScaledObject,
};

const errors = [];
const fail = (file, message) => errors.push(`${file}: ${message}`);

/** Series names /metrics exposes: each family, and a histogram's _bucket, _sum and _count. */
function exposedSeries(text) {
  const names = new Set();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === "histogram") ["_bucket", "_sum", "_count"].forEach((s) => names.add(name + s));
    if (type === "counter" && !name.endsWith("_total")) names.add(name + "_total");
  }
  return names;
}
const exposed = exposedSeries(scrape);
if (!exposed.has(SCALING.metric)) fail("--metrics", `the scrape has no ${SCALING.metric}: not a puma-plus /metrics page`);

/** Parses one PromQL expression with Prometheus's grammar; returns the metric names it selects. */
function promqlNames(file, where, expr) {
  const tree = promql.parse(expr);
  const names = [];
  let broken = false;
  tree.iterate({
    enter: (node) => {
      if (node.type.isError) broken = true;
      if (node.name === "VectorSelector") {
        const id = node.node.getChild("Identifier");
        if (id) names.push(expr.slice(id.from, id.to));
      }
    },
  });
  if (broken) fail(file, `${where}: not valid PromQL: ${expr}`);
  if (names.length === 0) fail(file, `${where}: selects no metric: ${expr}`);
  for (const name of names) {
    if (!exposed.has(name)) fail(file, `${where}: ${name} is not on /metrics (${expr})`);
  }
  return names;
}

/** Parses YAML strictly (duplicate keys are errors) into its documents. */
function documents(file) {
  const docs = parseAllDocuments(readFileSync(join(dir, file), "utf8"), { uniqueKeys: true });
  for (const doc of docs) for (const e of doc.errors) fail(file, `YAML: ${e.message}`);
  return docs.map((d) => d.toJS());
}

/** Validates one object against its kind's schema; returns it, or undefined for an unknown kind. */
function validateKind(file, object) {
  const key = `${object?.apiVersion}/${object?.kind}`;
  const Model = KINDS[key];
  if (!Model) {
    fail(file, `unexpected apiVersion/kind ${key}`);
    return undefined;
  }
  try {
    new Model(object).validate();
  } catch (e) {
    fail(file, `${key} schema: ${e.message}`);
  }
  return object;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const quantity = (q) => (String(q).endsWith("m") ? Number(String(q).slice(0, -1)) / 1000 : Number(q));

function checkAdapter(file) {
  const [cm] = documents(file);
  if (!validateKind(file, cm)) return;
  const config = parseYaml(cm.data?.["config.yaml"] ?? "", { uniqueKeys: true });
  const ajv = new Ajv({ allErrors: true, strict: true });
  const schema = JSON.parse(readFileSync(join(here, "prometheus-adapter-config.schema.json"), "utf8"));
  if (!ajv.validate(schema, config)) fail(file, `config.yaml: ${ajv.errorsText(ajv.errors, { dataVar: "config" })}`);
  const rule = (config?.rules ?? []).find((r) => r.name?.as === SCALING.metric);
  if (!rule) return fail(file, `no custom rule exposes ${SCALING.metric}`);
  promqlNames(file, "seriesQuery", rule.seriesQuery);
  if (typeof rule.metricsQuery !== "string") return fail(file, `the ${SCALING.metric} rule has no metricsQuery`);
  // The adapter fills the template in; parse it as the query it sends.
  const query = rule.metricsQuery.replaceAll("<<.Series>>", SCALING.metric)
    .replaceAll("<<.LabelMatchers>>", 'namespace="default",pod=~"web-.*"').replaceAll("<<.GroupBy>>", "pod");
  promqlNames(file, "metricsQuery", query);
}

function checkHpa(file) {
  const [hpa] = documents(file);
  if (!validateKind(file, hpa)) return;
  const spec = hpa.spec ?? {};
  const metric = spec.metrics?.[0]?.pods;
  if (spec.metrics?.length !== 1 || metric?.metric?.name !== SCALING.metric) fail(file, `scales on one Pods metric, ${SCALING.metric}`);
  if (metric?.target?.type !== "AverageValue" || quantity(metric?.target?.averageValue) !== SCALING.target) {
    fail(file, `target: AverageValue ${SCALING.target}, not ${JSON.stringify(metric?.target)}`);
  }
  if (spec.minReplicas !== SCALING.minReplicas || spec.maxReplicas !== SCALING.maxReplicas) fail(file, "min/max replicas differ from the simulation's");
  if (!same(spec.behavior, SCALING.behavior)) fail(file, `behavior differs from the simulation's: ${JSON.stringify(spec.behavior)}`);
}

function checkKeda(file) {
  const [so] = documents(file);
  if (!validateKind(file, so)) return;
  const spec = so.spec ?? {};
  const trigger = spec.triggers?.[0];
  if (spec.triggers?.length !== 1 || trigger.type !== "prometheus") return fail(file, "one prometheus trigger");
  const names = promqlNames(file, "trigger query", trigger.metadata.query);
  if (!same(names, [SCALING.metric]) || !/^\s*sum\s*\(/.test(trigger.metadata.query)) {
    fail(file, `the query must be sum(${SCALING.metric}...): an AverageValue metric is divided by the replicas`);
  }
  if ((trigger.metricType ?? "AverageValue") !== "AverageValue" || Number(trigger.metadata.threshold) !== SCALING.target) {
    fail(file, `threshold: AverageValue ${SCALING.target}`);
  }
  if (spec.minReplicaCount !== SCALING.minReplicas || spec.maxReplicaCount !== SCALING.maxReplicas) fail(file, "min/max replicas differ from the simulation's");
  if (!same(spec.advanced?.horizontalPodAutoscalerConfig?.behavior, SCALING.behavior)) fail(file, "behavior differs from the simulation's");
}

function checkDashboard(file) {
  let dash;
  try {
    dash = JSON.parse(readFileSync(join(dir, file), "utf8"));
  } catch (e) {
    return fail(file, `not JSON: ${e.message}`);
  }
  if (typeof dash.title !== "string" || typeof dash.uid !== "string" || !Number.isInteger(dash.schemaVersion)) {
    fail(file, "a dashboard needs title, uid and schemaVersion");
  }
  const variables = new Set((dash.templating?.list ?? []).map((v) => v.name));
  const ids = new Set();
  const panels = dash.panels ?? [];
  if (panels.length === 0) fail(file, "no panels");
  for (const panel of panels) {
    const where = `panel ${panel.id} "${panel.title}"`;
    if (ids.has(panel.id)) fail(file, `${where}: duplicate id`);
    ids.add(panel.id);
    const g = panel.gridPos ?? {};
    if (![g.x, g.y, g.w, g.h].every(Number.isInteger) || g.x + g.w > 24) fail(file, `${where}: gridPos`);
    if (!(panel.targets?.length > 0)) fail(file, `${where}: no targets`);
    for (const target of panel.targets ?? []) {
      for (const [, name] of target.expr.matchAll(/\$\{?(\w+)/g)) {
        if (name !== "__rate_interval" && !variables.has(name)) fail(file, `${where}: $${name} is not a dashboard variable`);
      }
      // Grafana substitutes the variables before Prometheus sees the query.
      promqlNames(file, `${where} ${target.refId}`, target.expr.replaceAll("$__rate_interval", "1m"));
    }
  }
  for (const v of dash.templating?.list ?? []) {
    if (v.type === "query") promqlNames(file, `variable ${v.name}`, v.definition.replace(/^label_values\((.*),\s*\w+\)$/, "$1"));
  }
}

checkAdapter("prometheus-adapter.yaml");
checkHpa("hpa.yaml");
checkKeda("keda-scaledobject.yaml");
checkDashboard("grafana-dashboard.json");
if (errors.length > 0) {
  console.error(errors.join("\n"));
  console.error(`deploy: ${errors.length} error(s)`);
  process.exit(1);
}
console.log(`deploy: 4 files valid (${exposed.size} series names on /metrics)`);
