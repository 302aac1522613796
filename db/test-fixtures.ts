// Kept so branches written before test-support/ keep compiling until they merge; new tests import "@/test-support".
export { makeTenant, type TestTenant } from "@/test-support";
