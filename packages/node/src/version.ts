/** This SDK's version, sent in the user agent. Kept equal to package.json by a unit test. */
export const VERSION = "0.1.0";
