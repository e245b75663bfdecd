import {
  DataTypes,
  Model,
  type CreationOptional,
  type ForeignKey,
  type InferAttributes,
  type InferCreationAttributes,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';
import type { User } from './User';

export class ApiKey extends Model<InferAttributes<ApiKey>, InferCreationAttributes<ApiKey>> {
  declare id: CreationOptional<number>;
  declare userId: ForeignKey<User['id']>;
  declare name: CreationOptional<string>;
  /** The key's first characters, shown to operators to tell keys apart; never enough to use it. */
  declare prefix: string;
  /** sha256 of the whole key: keys are high-entropy random strings, so no salt or slow hash is needed. */
  declare keyHash: string;
  declare revokedAt: Date | null;
  /** The web session (sessions.id) a page key was made for: revoked when that session ends. */
  declare webSessionId: CreationOptional<number | null>;
  /** When the key stops working by itself (epoch ms), or null: never. */
  declare expiresMs: CreationOptional<number | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare user?: NonAttribute<User>;

  static initModel(sequelize: Sequelize) {
    this.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        name: { type: DataTypes.STRING(255), allowNull: false, defaultValue: 'default' },
        prefix: { type: DataTypes.STRING(16), allowNull: false },
        keyHash: { type: DataTypes.STRING(64), allowNull: false },
        revokedAt: { type: DataTypes.DATE, allowNull: true },
        webSessionId: { type: DataTypes.BIGINT, allowNull: true },
        expiresMs: { type: DataTypes.BIGINT, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'api_keys', underscored: true },
    );
  }
}
