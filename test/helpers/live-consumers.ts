/** The API processes' shared consumers of live task events on MATS_TASKS (one per process while anything follows events live). */
export { liveEventConsumers as liveConsumers } from '../../src/queries/live-tap.js'
