// The identities fake AWS knows: IAM users with static keys, and the sessions
// STS hands out (assumed roles), all found by access key id.
import { randomBytes } from 'node:crypto';
import { sha256 } from '../../api/aws/sigv4.ts';

export interface IamUser {
  name: string;
  account: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface Role {
  /** arn:aws:iam::<account>:role/<name> */
  arn: string;
  /** Trust policy: token subjects (system:serviceaccount:<ns>:<sa>) that may assume it. */
  subjects: string[];
}

/** Who holds a key: an IAM user, or an assumed role's session (with its token and expiry). */
export interface Session {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  principal: string;
  account: string;
  /** GetCallerIdentity's UserId: AIDA… for a user, AROA…:<session> for an assumed role. */
  userId: string;
  expiresAt?: number;
}

/** Every key fake AWS issued, by access key id. */
export class IamKeys {
  private readonly keys = new Map<string, Session>();

  constructor(users: IamUser[] = []) {
    for (const u of users)
      this.keys.set(u.accessKeyId, {
        ...u,
        principal: `arn:aws:iam::${u.account}:user/${u.name}`,
        userId: stableId('AIDA', u.accessKeyId),
      });
  }

  get(accessKeyId: string): Session | undefined {
    return this.keys.get(accessKeyId);
  }

  /** New session credentials (ASIA…) for `roleArn` (arn:aws:iam::<account>:role/<path/name>), valid until `expiresAt`. */
  assume(roleArn: { account: string; name: string; arn: string }, sessionName: string, expiresAt: number): Session {
    const session: Session = {
      accessKeyId: `ASIA${randomId(16)}`,
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(48).toString('base64'),
      account: roleArn.account,
      principal: `arn:aws:sts::${roleArn.account}:assumed-role/${roleArn.name.split('/').pop()}/${sessionName}`,
      userId: `${stableId('AROA', roleArn.arn)}:${sessionName}`,
      expiresAt,
    };
    this.keys.set(session.accessKeyId, session);
    return session;
  }
}

/** An IAM user with fresh keys (AKIA…). */
export function newIamUser(name: string, account: string): IamUser {
  return { name, account, accessKeyId: `AKIA${randomId(16)}`, secretAccessKey: randomBytes(30).toString('base64') };
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** An IAM-style unique ID (AIDA…, AROA…) derived from a key or ARN, so it is the same on every call. */
function stableId(prefix: string, of: string): string {
  return (
    prefix +
    Array.from(Buffer.from(sha256(of), 'hex').subarray(0, 17), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('')
  );
}

function randomId(n: number): string {
  return Array.from(randomBytes(n), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}
