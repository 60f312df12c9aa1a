import { Gateway, HTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Service } from 'kubernetes-models/v1';

/**
 * The kinds the manifests use, each with its schema: the official Kubernetes
 * OpenAPI definitions and the Gateway API CRD schemas, compiled to ajv
 * validators by kubernetes-models. A kind without a schema is an error, not a pass.
 */
const KINDS: Record<string, { prototype: { validate(): void } }> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'gateway.networking.k8s.io/v1/Gateway': Gateway,
  'gateway.networking.k8s.io/v1/HTTPRoute': HTTPRoute,
};

interface Visited {
  path: string;
  value: object;
  read: Set<string>;
}

/**
 * The object as the validator sees it, noting every field the validator
 * reads. A compiled schema reads each property it declares (and every key of
 * a map it allows), so a field it never read is one the schema does not know.
 */
function watched<T>(value: T, path: string, visited: Visited[]): T {
  if (value === null || typeof value !== 'object') return value;
  const read = new Set<string>();
  if (!Array.isArray(value)) visited.push({ path, value, read });
  const children = new Map<string, unknown>();
  return new Proxy(value, {
    get(target, key, receiver) {
      const field: unknown = Reflect.get(target, key, receiver);
      if (typeof key !== 'string' || !Object.hasOwn(target, key)) return field;
      read.add(key);
      if (!children.has(key)) children.set(key, watched(field, `${path}/${key}`, visited));
      return children.get(key);
    },
  });
}

/**
 * Problems of one Kubernetes object: the schema's errors (types, required
 * fields, enums, formats), and, as kubeconform's -strict does, every field the
 * schema does not declare: the API server would drop such a field silently.
 */
export function manifestProblems(doc: unknown): string[] {
  if (doc === null || typeof doc !== 'object') return ['not an object'];
  const { apiVersion, kind } = doc as { apiVersion?: unknown; kind?: unknown };
  const model = KINDS[`${String(apiVersion)}/${String(kind)}`];
  if (!model) return [`no schema for ${String(apiVersion)} ${String(kind)}`];
  const visited: Visited[] = [];
  const target = watched(Object.assign(Object.create(model.prototype) as object, doc), '', visited);
  const problems: string[] = [];
  try {
    (target as { validate(): void }).validate();
  } catch (err) {
    problems.push((err as Error).message);
  }
  // Compiled with allErrors: the validator reads every field even after an error.
  for (const { path, value, read } of visited) {
    for (const key of Object.keys(value)) if (!read.has(key)) problems.push(`${path}/${key}: unknown field`);
  }
  return problems;
}
