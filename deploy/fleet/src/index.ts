export { fleetLayout, INSTANCES, type FleetLayout, type FleetOptions, type ServiceInstance } from './fleet-layout';
export { fleetOptionsFrom } from './fleet-options';
export { openFleet, fleetUp, fleetDown, fleetStatus, type Fleet } from './fleet';
export { Supervisor, type ProcessSpec } from './supervisor';
