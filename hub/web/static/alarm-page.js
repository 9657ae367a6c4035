// The alarm on a page of its own (Tables, Dice): the count of what needs the TD and its sound.
import { watchAlerts } from "./alarm.js";

watchAlerts();
