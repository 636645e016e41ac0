// What fake OCI records of each request: never a signature's value or a key.
export interface OciRecord {
  seq: number;
  time: string;
  method: string;
  path: string;
  host: string;
  userAgent?: string;
  cluster?: string;
  /** The signature's keyId (<tenancy>/<user>/<fingerprint>: names, not secrets) and the headers it covers. */
  keyId?: string;
  signedHeaders?: string[];
  /** The API key's user, once the keyId named a known key. */
  user?: string;
  /** Seconds between the request's Date and the fake's clock (positive: the Date is in the past). */
  dateSkewS?: number;
  status: number;
  error?: string;
}
