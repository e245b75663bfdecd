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

export class ShareRequest extends Model<InferAttributes<ShareRequest>, InferCreationAttributes<ShareRequest>> {
  declare id: string;
  declare code: string;
  declare userId: ForeignKey<User['id']>;
  declare themeSlug: string;
  declare expiresAt: Date | null;
  declare maxUses: number | null;
  declare uses: CreationOptional<number>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare user?: NonAttribute<User>;

  static initModel(sequelize: Sequelize) {
    this.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true },
        code: { type: DataTypes.STRING(64), allowNull: false },
        themeSlug: { type: DataTypes.STRING(100), allowNull: false },
        expiresAt: { type: DataTypes.DATE, allowNull: true },
        maxUses: { type: DataTypes.INTEGER, allowNull: true },
        uses: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'share_requests', underscored: true },
    );
  }
}
